#!/usr/bin/env python3
"""soak: many consecutive runs against three real agents and a real NFS
server, with faults chosen by a seeded random generator, and the run
invariants of docs/running.md checked after every run.

    soak.py [--runs N] [--seconds S] [--seed X] [--verbose]

Faults: kill -9 or SIGSTOP of an agent, of the coordinator or of the NFS
server; SIGINT of the coordinator at a random instant; a small tmpfs that
fills up; a network-namespace link cut; hostile frames and idle sockets from
a stranger during the run.  Invariants after every run:

  - the coordinator exits within a bounded time, with a status the fault
    allows, and (unless it was killed -9) writes a parseable JSON whose
    phase verdicts agree with the status;
  - every op is counted once: for each phase and op type, the aggregate
    equals the sum of the agents and the sum of the intervals (cut-offs
    included);
  - every agent that was not killed serves the next run within
    lease + 5 s (a probe run), never "busy" past that;
  - no agent's RSS or open file count grows from run to run.

The same seed replays the same sequence of workloads and faults (timing on
a shared machine still varies).  Prints runs, faults, violations and the
seed; exits 1 on any violation, 77 when the machine cannot host it.

Network: agents 0 and 1 listen on loopback; agent 2 lives in a network
namespace made here, reached over a veth pair in 10.214.N.0/30.  Before
the pair exists, a blackhole route for 10.214.0.0/16 is installed in the
root namespace, so while the link is cut no packet to the test subnet can
follow the default route off the machine; every cut also checks the route
the kernel would take.
"""
import argparse
import collections
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NFSTORM = os.path.join(ROOT, "bin", "nfstorm")
AGENT = os.path.join(ROOT, "bin", "nfstorm-agent")
LEASE_S = 2
AGENT_TIMEOUT_S = 3
RUN_LIMIT_S = 60          # a run (with its fault) must end within this
SUBNET = "10.214.0.0/16"

log_verbose = False


def say(*a):
    print("soak:", *a, flush=True)


def debug(*a):
    if log_verbose:
        print("soak:   ", *a, flush=True)


def sh(cmd, check=True, **kw):
    r = subprocess.run(cmd, shell=isinstance(cmd, str), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, **kw)
    if check and r.returncode != 0:
        raise RuntimeError("%s: %s" % (cmd, r.stdout.strip()))
    return r


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def proc_rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def proc_fds(pid):
    """What the process' open files are (socket:[n] collapsed to 'socket')."""
    out = []
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                t = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            out.append(t.split(":")[0] if ":[" in t else t)
    except OSError:
        pass
    return sorted(out)


class Agent:
    """One nfstorm-agent process, restartable on the same address."""

    def __init__(self, idx, work, secret, allow, allow_nfs, netns=None, addr=None):
        self.idx, self.work, self.secret = idx, work, secret
        self.allow, self.allow_nfs, self.netns = allow, allow_nfs, netns
        self.addr = addr or "127.0.0.1:%d" % free_port()
        self.proc = None
        self.starts = 0
        self.samples = []       # (rss_kb, nfds, fds) after each run, since the last start
        self.sanitized = False  # built with ASan (its RSS is no measure of leaks)

    def start(self):
        cmd = [AGENT, "--listen", self.addr, "--secret-file", self.secret,
               "--lease", "%ds" % LEASE_S]
        for a in self.allow:
            cmd += ["--allow", a]
        for a in self.allow_nfs:
            cmd += ["--allow-nfs", a]
        if self.netns:
            cmd = ["ip", "netns", "exec", self.netns] + cmd
        self.starts += 1
        logf = open(os.path.join(self.work, "agent%d.%d.log" % (self.idx, self.starts)), "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=logf, text=True)
        logf.close()
        line = self.proc.stdout.readline()
        if not line.startswith("listening on"):
            # the port may still be held by the previous process' TIME_WAIT: retry
            self.proc.wait()
            raise RuntimeError("agent %d did not start: %r" % (self.idx, line))
        self.samples = []

    def kill(self, sig=signal.SIGKILL):
        if self.proc and self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, sig)
            except ProcessLookupError:
                pass
            if sig in (signal.SIGKILL, signal.SIGTERM):
                self.proc.wait(timeout=20)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def sample(self):
        if not self.samples:
            try:
                self.sanitized = "libasan" in open("/proc/%d/maps" % self.proc.pid).read()
            except OSError:
                self.sanitized = False
        fds = proc_fds(self.proc.pid)
        self.samples.append((proc_rss_kb(self.proc.pid), len(fds), fds))


class Nfs:
    """nfs-ganesha on loopback through the project's tests/nfs_server.sh;
    rpcbind started here when none answers (and stopped at the end)."""

    def __init__(self, work):
        self.work = work
        self.export = os.path.join(work, "export")
        os.makedirs(self.export)
        os.chmod(self.export, 0o777)
        self.rpcbind = None
        self.pid = None

    def start(self):
        if sh("rpcinfo -p 127.0.0.1", check=False).returncode != 0:
            os.makedirs("/run/rpcbind", exist_ok=True)
            self.rpcbind = subprocess.Popen(["rpcbind", "-f"], stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
            for _ in range(50):
                if sh("rpcinfo -p 127.0.0.1", check=False).returncode == 0:
                    break
                time.sleep(0.1)
        out = sh(["bash", "-c", 'source "$1"; nfs_server_start "$2" >&2 || exit 1; '
                  'echo "$NFS_PID $NFS_PORT $NFS_MOUNT_PORT $NFS_SERVER_DIR"',
                  "x", os.path.join(ROOT, "tests", "nfs_server.sh"), self.export])
        last = out.stdout.strip().splitlines()[-1].split()
        self.pid, self.port, self.mport, self.dir = int(last[0]), last[1], last[2], last[3]
        self.url3 = "nfs://127.0.0.1%s?nfsport=%s&mountport=%s" % (self.export, self.port, self.mport)
        self.url4 = "nfs://127.0.0.1/nfstorm?version=4&nfsport=%s" % self.port
        self.allow = ["nfs://127.0.0.1%s" % self.export, "nfs://127.0.0.1/nfstorm"]

    def alive(self):
        try:
            os.kill(self.pid, 0)
            return True
        except OSError:
            return False

    def relaunch(self):
        """Start ganesha again on the same ports and config (after a kill)."""
        conf = os.path.join(self.dir, "ganesha.conf")
        p = subprocess.Popen(["ganesha.nfsd", "-F", "-f", conf, "-L",
                              os.path.join(self.dir, "ganesha.log"), "-p",
                              os.path.join(self.dir, "ganesha.pid"), "-N", "NIV_WARN"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        self.pid = p.pid
        self._child = p
        for _ in range(200):
            if sh(["nfs-ls", self.url3], check=False).returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("ganesha did not come back")

    def kill(self, sig):
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            return
        if sig == signal.SIGKILL:
            for _ in range(100):
                if not self.alive() or open("/proc/%d/stat" % self.pid).read().split()[2] == "Z":
                    break
                time.sleep(0.05)
            if getattr(self, "_child", None):
                self._child.wait()

    def stop(self):
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGCONT)
            except OSError:
                pass
            self.kill(signal.SIGTERM)
            for _ in range(100):
                if not self.alive():
                    break
                time.sleep(0.1)
            self.kill(signal.SIGKILL)
        if self.rpcbind:
            self.rpcbind.terminate()
            self.rpcbind.wait()
        if getattr(self, "dir", None):
            shutil.rmtree(self.dir, ignore_errors=True)


class Netns:
    """A namespace for agent 2 and the veth pair to it, with the blackhole
    route that keeps the test subnet on this machine."""

    def __init__(self):
        tag = "%04x" % random.SystemRandom().randrange(65536)
        self.ns, self.host, self.peer = "nfsoak" + tag, "sk%sh" % tag, "sk%sn" % tag
        self.net = 1 + int(tag, 16) % 250
        self.addr_host = "10.214.%d.1" % self.net
        self.addr_ns = "10.214.%d.2" % self.net
        self.made = []

    def setup(self):
        # the blackhole first: no moment exists where a cut link could leak
        sh(["ip", "route", "add", "blackhole", SUBNET, "metric", "4000"])
        self.made.append("route")
        sh(["ip", "netns", "add", self.ns])
        self.made.append("ns")
        sh(["ip", "link", "add", self.host, "type", "veth", "peer", "name", self.peer])
        self.made.append("link")
        sh(["ip", "link", "set", self.peer, "netns", self.ns])
        sh(["ip", "addr", "add", self.addr_host + "/30", "dev", self.host])
        sh(["ip", "link", "set", self.host, "up"])
        sh(["ip", "netns", "exec", self.ns, "ip", "addr", "add", self.addr_ns + "/30", "dev", self.peer])
        sh(["ip", "netns", "exec", self.ns, "ip", "link", "set", self.peer, "up"])
        sh(["ip", "netns", "exec", self.ns, "ip", "link", "set", "lo", "up"])

    def route_dev(self):
        """The device (or 'blackhole'/'unreachable') the kernel would use now."""
        r = sh(["ip", "-o", "route", "get", self.addr_ns], check=False).stdout
        if r.startswith("blackhole") or "unreachable" in r or r.strip() == "" or \
                "RTNETLINK" in r or "Invalid" in r:
            return "blackhole"
        w = r.split()
        return w[w.index("dev") + 1] if "dev" in w else r.strip()

    def cut(self):
        sh(["ip", "link", "set", self.host, "down"])

    def mend(self):
        sh(["ip", "link", "set", self.host, "up"])

    def teardown(self):
        if "link" in self.made:
            sh(["ip", "link", "del", self.host], check=False)
        if "ns" in self.made:
            sh(["ip", "netns", "del", self.ns], check=False)
        if "route" in self.made:
            sh(["ip", "route", "del", "blackhole", SUBNET, "metric", "4000"], check=False)


def stranger(addr, kind, seconds):
    """Hostile bytes to an agent while a run goes on: returns the open sockets."""
    host, port = addr.rsplit(":", 1)
    socks = []
    try:
        if kind == "idle":
            for _ in range(20):
                socks.append(socket.create_connection((host, int(port)), timeout=2))
        elif kind == "huge":
            s = socket.create_connection((host, int(port)), timeout=2)
            s.sendall(struct.pack(">I", 0xFFFFFFF0) + b"\x00" * 1000)
            socks.append(s)
        elif kind == "garbage":
            s = socket.create_connection((host, int(port)), timeout=2)
            s.sendall(struct.pack(">I", 64) + os.urandom(64))
            socks.append(s)
        else:  # a truncated hello-sized frame, then nothing
            s = socket.create_connection((host, int(port)), timeout=2)
            s.sendall(struct.pack(">I", 4096) + b"\x81\xa4type" + b"\x00" * 100)
            socks.append(s)
    except OSError as e:
        debug("stranger: %s" % e)
    return socks


# ---- workloads: (name, plan text, needs) -------------------------------

def workloads(ctx):
    d, small = ctx["dir"], ctx["small"]
    g = "[global]\nruntime=2\ntime_based=1\n"
    w = [
        ("randwrite", g + "[rw]\nrw=randwrite\nbs=4k\nsize=4m\ndirectory=%s\n" % d, ""),
        ("seqread", "[global]\nruntime=2\n[sr]\nrw=read\nbs=64k\nsize=8m\ndirectory=%s\n" % d, ""),
        ("randrw-depth", g + "[rr]\nrw=randrw\nbs=4k\nsize=4m\nioengine=io_uring\niodepth=8\n"
         "numjobs=2\ndirectory=%s\n" % d, ""),
        ("rated", g + "[rt]\nrw=write\nbs=4k\nsize=4m\nrate_iops=300\ndirectory=%s\n" % d, ""),
        ("metadata", g + "[md]\nrw=metadata\nmd_ops=create,stat,unlink\nnrfiles=100\n"
         "directory=%s\n" % d, ""),
        ("two-phase", "[global]\nruntime=1\ntime_based=1\nbs=4k\nsize=4m\ndirectory=%s\n"
         "[w]\nrw=randwrite\n[r]\nstonewall\nrw=randread\n" % d, ""),
    ]
    if ctx.get("nfs"):
        n = ctx["nfs"]
        w += [
            ("nfs3", g + "[n3]\nioengine=nfs\nnfs_url=%s\nfilename=soak.${agent}\nrw=randrw\nbs=4k\n"
             "size=4m\niodepth=8\nagents=0-1\n" % n.url3, "nfs"),
            ("nfs4", g + "[n4]\nioengine=nfs\nnfs_url=%s\nfilename=soak4.${agent}\nrw=randwrite\n"
             "bs=4k\nsize=4m\niodepth=4\nagents=0-1\n" % n.url4, "nfs"),
        ]
    if small:
        w.append(("fill", "[fill]\nrw=write\nbs=1m\nsize=64m\nfilename=%s/fill.${agent}\n" % small,
                  "fill"))
    return w


FAULTS = ["none", "kill-agent", "stop-agent", "kill-coord", "stop-coord", "sigint",
          "kill-nfs", "stop-nfs", "cut-link", "stranger"]
# exit statuses each fault allows (the coordinator's contract)
# (a fault may land after the victim finished its last phase: then 0 is right)
ALLOWED = {
    "none": {0}, "kill-agent": {0, 1, 3}, "stop-agent": {0, 3}, "kill-coord": None,
    "stop-coord": {0, 1, 3}, "sigint": {130}, "kill-nfs": {0, 1, 3}, "stop-nfs": {0, 1, 3},
    "cut-link": {0, 3}, "stranger": {0},
}
VERDICT_OF_STATUS = {0: {"ok"}, 1: {"failed"}, 3: {"partial"}, 130: {"interrupted"}}


class Soak:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.work = tempfile.mkdtemp(prefix="nfstorm-soak.")
        self.violations = []
        self.faults = collections.Counter()
        self.runs = 0
        self.clean_runs = 0
        self.netns = None
        self.nfs = None
        self.small = None
        self.agents = []

    def violate(self, run, what):
        msg = "run %d: %s" % (run, what)
        self.violations.append(msg)
        say("VIOLATION", msg)

    # ---- setup and teardown ----
    def setup(self):
        self.secret = os.path.join(self.work, "secret")
        with open(self.secret, "w") as f:
            f.write("soak-%d-%s\n" % (self.args.seed, os.urandom(16).hex()))
        os.chmod(self.secret, 0o600)
        self.dir = os.path.join(self.work, "d")
        os.makedirs(self.dir)
        small = os.path.join(self.work, "small")
        os.makedirs(small)
        if sh(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", small], check=False).returncode == 0:
            self.small = small
        else:
            say("no tmpfs mount here: the fill fault is left out")
        try:
            self.nfs = Nfs(self.work)
            self.nfs.start()
        except Exception as e:       # noqa: BLE001 - reported, the rest still runs
            say("no NFS server (%s): NFS workloads and faults are left out" % e)
            self.nfs = None
        try:
            self.netns = Netns()
            self.netns.setup()
        except Exception as e:       # noqa: BLE001
            say("no network namespace (%s): agent 2 on loopback, no link cuts" % e)
            if self.netns:
                self.netns.teardown()
            self.netns = None
        allow = [self.dir] + ([self.small] if self.small else [])
        allow_nfs = self.nfs.allow if self.nfs else []
        for i in range(3):
            ns = self.netns.ns if (i == 2 and self.netns) else None
            addr = "%s:7878" % self.netns.addr_ns if ns else None
            a = Agent(i, self.work, self.secret, allow, allow_nfs, netns=ns, addr=addr)
            self.start_agent(a)
            self.agents.append(a)
        self.ctx = {"dir": self.dir, "small": self.small, "nfs": self.nfs}

    def start_agent(self, a):
        for attempt in range(20):
            try:
                a.start()
                return
            except RuntimeError:
                if attempt == 19:
                    raise
                time.sleep(0.5)

    def teardown(self):
        for a in self.agents:
            if a.proc and a.proc.poll() is None:
                os.kill(a.proc.pid, signal.SIGCONT)
                a.proc.terminate()
                try:
                    a.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    a.proc.kill()
                    a.proc.wait()
        if self.nfs:
            self.nfs.stop()
        if self.netns:
            self.netns.teardown()
        if self.small:
            sh(["umount", "-l", self.small], check=False)
        if not self.args.keep:
            shutil.rmtree(self.work, ignore_errors=True)

    # ---- one run ----
    def coord_cmd(self, plan_path, json_path, agents=None):
        addrs = ",".join(a.addr for a in (agents or self.agents))
        return [NFSTORM, "run", plan_path, "--agents", addrs, "--secret-file", self.secret,
                "--agent-timeout", "%ds" % AGENT_TIMEOUT_S, "--quiet", "--json", json_path]

    def choose(self):
        wl = workloads(self.ctx)
        name, plan, needs = self.rng.choice(wl)
        faults = [f for f in FAULTS
                  if not (f in ("kill-nfs", "stop-nfs") and needs != "nfs")
                  and not (f == "cut-link" and not self.netns)]
        fault = "none" if self.rng.random() < 0.2 else self.rng.choice(faults)
        when = self.rng.uniform(0.3, 2.5)
        victim = self.rng.randrange(3)
        if fault == "cut-link":
            victim = 2
        return name, plan, needs, fault, when, victim

    def one_run(self, n):
        name, plan, needs, fault, when, victim = self.choose()
        if needs == "fill":
            for f in os.listdir(self.small):
                os.unlink(os.path.join(self.small, f))
        plan_path = os.path.join(self.work, "plan%d.fio" % n)
        json_path = os.path.join(self.work, "r%d.json" % n)
        with open(plan_path, "w") as f:
            f.write(plan)
        self.faults[fault] += 1
        debug("run %d: %s, fault %s at %.1f s on %d" % (n, name, fault, when, victim))
        out = open(os.path.join(self.work, "coord%d.out" % n), "w")
        t0 = time.time()
        c = subprocess.Popen(self.coord_cmd(plan_path, json_path), stdout=out, stderr=out)
        out.close()
        socks = []
        restart = []
        stopped = None
        killed_coord = False
        time.sleep(when)
        if c.poll() is None:
            if fault == "kill-agent":
                self.agents[victim].kill(signal.SIGKILL)
                restart.append(self.agents[victim])
            elif fault == "stop-agent":
                os.kill(self.agents[victim].proc.pid, signal.SIGSTOP)
                stopped = ("agent", self.agents[victim].proc.pid, self.rng.choice([1, 5]))
            elif fault == "kill-coord":
                c.kill()
                killed_coord = True
            elif fault == "stop-coord":
                os.kill(c.pid, signal.SIGSTOP)
                stopped = ("coord", c.pid, 5)
            elif fault == "sigint":
                os.kill(c.pid, signal.SIGINT)
            elif fault == "kill-nfs":
                self.nfs.kill(signal.SIGKILL)
                time.sleep(1)
                self.nfs.relaunch()
            elif fault == "stop-nfs":
                os.kill(self.nfs.pid, signal.SIGSTOP)
                stopped = ("nfs", self.nfs.pid, 2)
            elif fault == "cut-link":
                if "route" not in self.netns.made:
                    self.violate(n, "no blackhole route for the test subnet before a cut")
                self.netns.cut()
                dev = self.netns.route_dev()
                if dev not in (self.netns.host, "blackhole"):
                    self.violate(n, "with the link cut, packets to %s would leave through %s"
                                 % (self.netns.addr_ns, dev))
                time.sleep(5)
                self.netns.mend()
            elif fault == "stranger":
                kind = self.rng.choice(["idle", "huge", "garbage", "truncated"])
                socks = stranger(self.agents[victim].addr, kind, 3)
        if stopped:
            time.sleep(stopped[2])
            os.kill(stopped[1], signal.SIGCONT)
        # bounded exit
        try:
            rc = c.wait(timeout=max(1, RUN_LIMIT_S - (time.time() - t0)))
        except subprocess.TimeoutExpired:
            self.violate(n, "%s/%s: coordinator still running after %d s" % (name, fault, RUN_LIMIT_S))
            c.kill()
            rc = c.wait()
        for s in socks:
            s.close()
        elapsed = time.time() - t0
        text = open(os.path.join(self.work, "coord%d.out" % n)).read()
        before = len(self.violations)
        if not killed_coord:
            self.check_result(n, name, fault, needs, rc, json_path, text)
        for a in restart:
            self.start_agent(a)
        self.check_serves_next(n, name, fault)
        self.check_growth(n)
        debug("run %d: exit %d in %.1f s" % (n, rc, elapsed))
        if len(self.violations) == before:
            self.clean_runs += 1
        else:
            say("run %d (%s, fault %s, victim %d): coordinator output: %s"
                % (n, name, fault, victim, text.strip()[-600:]))

    def check_result(self, n, name, fault, needs, rc, json_path, text):
        what = "%s/%s" % (name, fault)
        allowed = ALLOWED[fault]
        if needs == "fill":
            allowed = {1, 3, 130} if fault != "none" else {1}
        elif needs == "nfs" and fault in ("kill-agent", "stop-agent", "cut-link"):
            allowed = allowed | {1}
        if rc < 0 or rc >= 128 and rc != 130:
            self.violate(n, "%s: coordinator killed by signal %d" % (what, rc if rc < 0 else rc - 128))
            return
        if fault == "sigint" and rc == 0 and not any(w in text for w in ("interrupt", "signal", "SIG")):
            # the signal reached a process already exiting (or a zombie not yet
            # reaped): it never saw it, and its exit 0 is right
            allowed = {0}
        if allowed is not None and rc not in allowed:
            self.violate(n, "%s: exit %d, allowed %s: %s" % (what, rc, sorted(allowed),
                                                           text.strip()[-300:]))
        if rc == 2:
            return
        if needs == "fill" and rc == 1 and not any(k in text for k in
                                                   ("No space", "ENOSPC", "free on")):
            self.violate(n, "%s: full file system not named: %s" % (what, text.strip()[-300:]))
        if not os.path.exists(json_path):
            self.violate(n, "%s: exit %d and no result JSON" % (what, rc))
            return
        try:
            r = json.load(open(json_path))
        except ValueError as e:
            self.violate(n, "%s: result JSON does not parse: %s" % (what, e))
            return
        left = [f for f in os.listdir(os.path.dirname(json_path))
                if f.startswith(os.path.basename(json_path) + ".") and not f.endswith(".journal")]
        if left:
            self.violate(n, "%s: temp files left beside the JSON: %s" % (what, left))
        verdicts = [p.get("verdict") for p in r.get("phases", [])]
        want = VERDICT_OF_STATUS.get(rc)
        if want and verdicts and None not in verdicts:
            if rc == 0 and set(verdicts) != {"ok"}:
                self.violate(n, "%s: exit 0 with verdicts %s" % (what, verdicts))
            # 130 may come from a signal after the last phase ended: the run's
            # "end" says so (or, after the run, the coordinator's last line)
            late = rc == 130 and ((r.get("end") or {}).get("how") == "interrupted" or
                                  "after the run ended" in text or "while writing" in text)
            if rc != 0 and not (want & set(verdicts)) and rc != 1 and not late:
                self.violate(n, "%s: exit %d but no phase verdict %s (%s)" % (what, rc, want, verdicts))
            if rc == 1 and "failed" not in verdicts and "ok" in verdicts and \
                    len(set(verdicts)) == 1:
                self.violate(n, "%s: exit 1 with all verdicts ok" % what)
        elif rc in (0, 1, 3, 130) and r.get("phases") and None in verdicts:
            self.violate(n, "%s: phases without a verdict" % what)
        for pi, ph in enumerate(r.get("phases", [])):
            for op, o in ph.get("ops", {}).items():
                agents = sum(a.get("ops", {}).get(op, {}).get("ops", 0) for a in ph.get("agents", []))
                ints = sum(i.get("ops", {}).get(op, {}).get("ops", 0) for i in ph.get("intervals", []))
                if not (o.get("ops", 0) == agents == ints):
                    self.violate(n, "%s: phase %d %s: aggregate %d, agents %d, intervals %d"
                                 % (what, pi, op, o.get("ops", 0), agents, ints))
                ab = sum(a.get("ops", {}).get(op, {}).get("bytes", 0) for a in ph.get("agents", []))
                ib = sum(i.get("ops", {}).get(op, {}).get("bytes", 0) for i in ph.get("intervals", []))
                if not (o.get("bytes", 0) == ab == ib):
                    self.violate(n, "%s: phase %d %s bytes: aggregate %d, agents %d, intervals %d"
                                 % (what, pi, op, o.get("bytes", 0), ab, ib))
            if rc == 0 and ph.get("verdict", "ok") == "ok":
                total = sum(o.get("ops", 0) for o in ph.get("ops", {}).values())
                if total == 0:
                    self.violate(n, "%s: phase %d passed with no ops" % (what, pi))

    def check_serves_next(self, n, name, fault):
        """Every agent serves a probe run within lease + 5 s."""
        deadline = time.time() + LEASE_S + 5
        plan = os.path.join(self.work, "probe.fio")
        with open(plan, "w") as f:
            f.write("[probe]\nioengine=null\nrw=randread\nbs=4k\nsize=1m\nruntime=1\n")
        last = ""
        while True:
            r = subprocess.run(self.coord_cmd(plan, os.path.join(self.work, "probe.json")),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=RUN_LIMIT_S)
            if r.returncode == 0:
                break
            last = r.stdout.strip()[-300:]
            if time.time() > deadline:
                self.violate(n, "%s/%s: agents do not serve the next run within lease + 5 s: %s"
                             % (name, fault, last))
                # recover so later runs still mean something
                for a in self.agents:
                    if not a.alive():
                        self.start_agent(a)
                return
            time.sleep(0.5)
        time.sleep(0.3)
        for a in self.agents:
            if a.alive():
                a.sample()

    def check_growth(self, n):
        """RSS and open files at idle do not grow from run to run."""
        for a in self.agents:
            s = a.samples
            if len(s) < 8:
                continue
            base = s[2:6]
            recent = s[-4:]
            base_rss = sorted(x[0] for x in base)[len(base) // 2]
            rec_rss = sorted(x[0] for x in recent)[len(recent) // 2]
            base_fd = min(base, key=lambda x: x[1])
            rec_fd = min(recent, key=lambda x: x[1])
            # a leak grows with the runs; a lazily opened file (one, once) is not one
            if rec_fd[1] > base_fd[1] + 1:
                extra = list((collections.Counter(rec_fd[2]) - collections.Counter(base_fd[2])).elements())
                self.violate(n, "agent %d: open files grew from %d to %d at idle: %s"
                             % (a.idx, base_fd[1], rec_fd[1], ", ".join(extra)))
                a.samples = s[:2] + s[-6:]
            # (an ASan build keeps freed memory in quarantine: RSS says nothing)
            if not a.sanitized and rec_rss > base_rss * 1.25 + 16 * 1024:
                self.violate(n, "agent %d: RSS grew from %d KiB to %d KiB at idle"
                             % (a.idx, base_rss, rec_rss))
                a.samples = s[:2] + s[-6:]

    def main(self):
        t_start = time.time()
        self.setup()
        say("seed %d, %s, agents %s, nfs %s, tmpfs %s" % (
            self.args.seed,
            "%d runs" % self.args.runs if self.args.runs else "%d s" % self.args.seconds,
            ",".join(a.addr for a in self.agents), "yes" if self.nfs else "no",
            "yes" if self.small else "no"))
        n = 0
        while True:
            if self.args.runs and n >= self.args.runs:
                break
            if self.args.seconds and time.time() - t_start >= self.args.seconds:
                break
            self.one_run(n)
            n += 1
            self.runs = n
            if n % 10 == 0:
                say("%d runs, %d violations, %.0f s" % (n, len(self.violations), time.time() - t_start))
        say("runs %d in %.0f s; faults %s; invariant violations %d; seed %d" % (
            self.runs, time.time() - t_start,
            ", ".join("%s %d" % kv for kv in sorted(self.faults.items())),
            len(self.violations), self.args.seed))
        for v in self.violations:
            say("  " + v)
        print("soak: %d passed, %d failed" % (self.clean_runs, self.runs - self.clean_runs), flush=True)
        return 0 if not self.violations else 1


def main():
    global log_verbose
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=0)
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    if not args.runs and not args.seconds:
        args.runs = 200
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "big")
    log_verbose = args.verbose
    if os.geteuid() != 0:
        print("soak: SKIP: needs root (namespaces, tmpfs)")
        return 77
    for b in (NFSTORM, AGENT):
        if not os.access(b, os.X_OK):
            print("soak: no %s: build first" % b)
            return 1
    s = Soak(args)

    def on_signal(signum, frame):
        raise KeyboardInterrupt()
    signal.signal(signal.SIGTERM, on_signal)
    try:
        return s.main()
    except KeyboardInterrupt:
        say("interrupted after %d runs; seed %d" % (s.runs, args.seed))
        return 1
    finally:
        s.teardown()


if __name__ == "__main__":
    sys.exit(main())
