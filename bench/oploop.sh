#!/usr/bin/env bash
# Benchmark (not a test): the op loop's own cost (issue 27), each row set
# against its reference in the same run, runs alternating (the order flips
# every round so drift hits both alike), the mean of ROUNDS rounds:
#
#   null       ops per CPU-second of the job (ops/s on one core): nfstorm's
#              agent (null engine) / fio --ioengine=null        goal >= 1.5x
#   psync      4k randread of a tmpfs file, CPU per op: nfstorm's agent /
#              bench/pread_loop.c (a bare pread loop, same file)  goal <= 1.10x
#   nfs qd16   4k randread, libnfs to a loopback nfs-ganesha (NFSv3), client
#              CPU per op: nfstorm's agent / fio's nfs engine     goal <= 0.5x
#   nfs qd1    the same at iodepth=1                              goal <= 0.6x
#   rows 5-6   (1,000 agents) are bench/scale.sh's.
# The nfs rows also print the client's context switches per op (perf
# stat, where perf runs), the cost that dominates them on loopback.
# Then the rule that goes with them: psync p50 and p99 of nfstorm next to
# fio's (--ioengine=psync, the same file), "within" when no more than 5%
# above (one histogram bucket is 0.78%, the rest is run-to-run noise).
#
# CPU is measured, not inferred from wall time, so a busy machine moves the
# ratios less than it moves IOPS: nfstorm's is the agent process's over the
# phase (user_s + sys_s of the result's agents[].cpu: every thread of the
# agent, heartbeats included), fio's its job's (usr_cpu + sys_cpu of its
# JSON over job_runtime), pread_loop's its own getrusage.  Not alike: fio's
# is the job thread's own rusage (RUSAGE_THREAD), without fio's parent
# process (its helper thread: a quarter to a third of fio's samples under
# perf on the nfs rows), while the agent's job thread is ~97% of the agent's.
#
# BIN=DIR runs another build's nfstorm and nfstorm-agent (e.g. main's, for
# a before/after table); fio for the nfs rows: bench/build-fio-nfs.sh (or
# FIO=/path/to/fio with ioengine=nfs); without it those rows say so.
# ROWS="nfs" (any of null psync nfs, default all) runs only those rows.
# Usage: bench/oploop.sh [RUNTIME_S] [ROUNDS]   (default 3 3)
# Exit: 0 when every run worked (whatever the goals), 1 otherwise.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
RUNTIME=${1:-3}
ROUNDS=${2:-3}
BIN=${BIN:-$ROOT/bin}
command -v fio >/dev/null || { echo "oploop: fio is not installed (scripts/install-deps.sh)" >&2; exit 1; }
[ -x "$BIN/nfstorm" ] && [ -x "$BIN/nfstorm-agent" ] || { echo "oploop: no nfstorm in $BIN (make)" >&2; exit 1; }
FIONFS=$(bench/build-fio-nfs.sh 2>/dev/null) || FIONFS=""
HAVE_GANESHA=1
command -v ganesha.nfsd >/dev/null 2>&1 || HAVE_GANESHA=0

mkdir -p build
PREAD_LOOP=build/bench-pread-loop
cc -O2 -std=c11 -Wall -Wextra -o "$PREAD_LOOP" bench/pread_loop.c || { echo "oploop: cannot build bench/pread_loop.c" >&2; exit 1; }

source tests/nfs_server.sh
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nfstorm-oploop.XXXXXX")
SHM=$(mktemp -d /dev/shm/nfstorm-oploop.XXXXXX)
AGENT_PID=""
NFS_UP=0
stop_all() {
  if [ -n "$AGENT_PID" ]; then kill "$AGENT_PID" 2>/dev/null; wait "$AGENT_PID" 2>/dev/null; fi
  [ "$NFS_UP" = 1 ] && nfs_server_stop
  rm -rf "$WORK" "$SHM"
}
trap stop_all EXIT
trap 'exit 130' INT TERM
mkdir -p "$WORK/export"
URL=""
if [ "$HAVE_GANESHA" = 1 ] && [ -n "$FIONFS" ]; then
  if nfs_server_start "$WORK/export"; then NFS_UP=1; URL=$NFS_URL3; fi
fi

# One agent for every nfstorm run, as a client machine would have.
"$BIN/nfstorm-agent" --listen 127.0.0.1:0 --insecure --allow "$SHM" \
  ${URL:+--allow-nfs "$URL"} >"$WORK/agent.out" 2>"$WORK/agent.err" &
AGENT_PID=$!
for _ in $(seq 50); do grep -q '^listening on ' "$WORK/agent.out" && break; sleep 0.1; done
ADDR=$(sed -n 's/^listening on //p' "$WORK/agent.out")
[ -n "$ADDR" ] || { echo "oploop: agent did not start: $(cat "$WORK/agent.err")" >&2; exit 1; }

python3 - "$BIN" "$ADDR" "$SHM" "$WORK" "$RUNTIME" "$ROUNDS" "$PREAD_LOOP" "$FIONFS" "$URL" "$AGENT_PID" <<'PY'
import json, os, signal, subprocess, sys

bindir, addr, shm, work = sys.argv[1:5]
runtime, rounds = int(sys.argv[5]), int(sys.argv[6])
pread_loop, fionfs, url, agent_pid = sys.argv[7:11]
PFILE = os.path.join(shm, "preadfile")
NFILE = "benchdata"

def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("oploop: failed: %s\n%s" % (" ".join(cmd), (p.stderr or p.stdout)[-800:]))
    return p.stdout

def nfstorm(args):
    """ops and agent CPU seconds of one nfstorm run on the bench's agent"""
    res = os.path.join(work, "r.json")
    run([bindir + "/nfstorm", "run", "--agents", addr, "--quiet", "--json", res, "--name=nfstorm",
         "--runtime=%d" % runtime, "--time_based"] + args)
    ph = json.load(open(res))["phases"][0]
    o = ph["ops"]["read"]
    if o["errors"]:
        sys.exit("oploop: nfstorm %s: %d errors" % (" ".join(args), o["errors"]))
    return (o["ops"], sum(a["cpu"]["user_s"] + a["cpu"]["sys_s"] for a in ph["agents"]),
            o["lat_ns"]["p50"] / 1000.0, o["lat_ns"]["p99"] / 1000.0)

def fio(binary, args, prefix=None):
    out = run((prefix or []) + [binary, "--name=fio", "--rw=randread", "--bs=4k", "--runtime=%d" % runtime,
               "--time_based", "--lat_percentiles=1", "--output-format=json"] + args)
    j = json.loads(out[out.index("{"):])["jobs"][0]
    pct = j["read"]["lat_ns"]["percentile"]
    return (j["read"]["total_ios"], (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * j["job_runtime"] / 1000.0,
            pct["50.000000"] / 1000.0, pct["99.000000"] / 1000.0)

def bare():
    kv = dict(x.split("=") for x in run([pread_loop, PFILE, "4096", str(runtime)]).split())
    return int(kv["ops"]), float(kv["cpu_s"])

# Context switches of the client per op (nfs rows), where perf can count
# them: on loopback each switch costs the client several microseconds (a
# sleep for the reply and the wake-up, or the server's thread preempting
# the sender), so this is what the nfs rows' CPU per op is mostly made of.
def perf_ok():
    try:
        return subprocess.run(["perf", "stat", "-x,", "-e", "context-switches", "true"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False
PERF = perf_ok()
CS = {"nfstorm": [], "fio": []}

def perf_read(path):
    for line in open(path):
        f = line.strip().split(",")
        if len(f) > 2 and f[2] == "context-switches" and f[0].isdigit():
            return int(f[0])
    return None

def with_cs(who, fn, attach):
    """fn() with the context switches of the client (the agent process, or
    the command fn runs) counted; attach: perf -p the agent, else None"""
    if not PERF:
        return fn(None)
    out = os.path.join(work, "cs.txt")
    if attach:
        p = subprocess.Popen(["perf", "stat", "-x,", "-e", "context-switches", "-o", out, "-p", attach],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            r = fn(None)
        finally:
            p.send_signal(signal.SIGINT)
            p.wait()
    else:
        r = fn(["perf", "stat", "-x,", "-e", "context-switches", "-o", out, "--"])
    n = perf_read(out)
    if n is not None and r[0]:
        CS[who].append(n / r[0])
    return r

def us_per_op(r):
    return r[1] / r[0] * 1e6 if r[0] else float("nan")

def mops_per_cpu_s(r):
    return r[0] / r[1] / 1e6 if r[1] else float("nan")

want = os.environ.get("ROWS", "null psync nfs").replace(",", " ").split()
# the files read: written once at full size
if "psync" in want:
    run([bindir + "/nfstorm", "run", "--agents", addr, "--quiet", "--name=layout", "--ioengine=psync",
         "--filename=" + PFILE, "--rw=write", "--bs=1m", "--size=256m"])
if url:
    run([bindir + "/nfstorm", "run", "--agents", addr, "--quiet", "--name=layout", "--ioengine=nfs",
         "--nfs_url=" + url, "--filename=" + NFILE, "--rw=write", "--bs=1m", "--size=256m"])

# row: label, unit, metric, goal (text, test), nfstorm run, reference run, reference name
rows = [
    ("null, ops per CPU-s", "Mops/s", mops_per_cpu_s, (">= 1.5x", lambda r: r >= 1.5),
     lambda: nfstorm(["--ioengine=null", "--rw=randread", "--bs=4k", "--size=1g",
                      "--directory=" + shm]),
     lambda: fio("fio", ["--ioengine=null", "--size=1g"]), "fio null"),
    ("psync 4k randread CPU/op", "us", us_per_op, ("<= 1.10x", lambda r: r <= 1.10),
     lambda: nfstorm(["--ioengine=psync", "--rw=randread", "--bs=4k", "--size=256m",
                      "--filename=" + PFILE]),
     bare, "bare pread"),
]
for qd, goal in ((16, 0.5), (1, 0.6)):
    rows.append(("libnfs qd%d CPU/op" % qd, "us", us_per_op,
                 ("<= %.1fx" % goal, lambda r, g=goal: r <= g),
                 lambda qd=qd: with_cs("nfstorm", lambda _: nfstorm(["--ioengine=nfs", "--nfs_url=" + url, "--filename=" + NFILE,
                                        "--rw=randread", "--bs=4k", "--size=256m",
                                        "--iodepth=%d" % qd]), agent_pid),
                 (lambda qd=qd: with_cs("fio", lambda pre: fio(fionfs, ["--ioengine=nfs", "--nfs_url=" + url,
                                             "--filename=" + NFILE, "--size=256m",
                                             "--iodepth=%d" % qd], pre), None)) if url else None,
                 "fio nfs"))

print("oploop: %d s per run, %d alternating rounds, nfstorm from %s" % (runtime, rounds, bindir))
print("%-26s %10s %10s %-10s %7s %-9s %s" % ("row", "nfstorm", "reference", "(ref)", "ratio",
                                              "goal", "verdict"))
met = ran = 0
keys = ["null", "psync", "nfs", "nfs"]
for key, (label, unit, metric, (goal, ok), mine, ref, refname) in zip(keys, rows):
    if key not in want:
        continue
    if ref is None:
        print("%-26s %s" % (label, "skipped: no fio with ioengine=nfs or no nfs-ganesha"))
        continue
    ran += 1
    CS["nfstorm"], CS["fio"] = [], []
    a, b = [], []
    for k in range(rounds):
        order = ((a, mine), (b, ref))
        for acc, fn in (order if k % 2 == 0 else order[::-1]):
            acc.append(metric(fn()))
    ma, mb = sum(a) / rounds, sum(b) / rounds
    ratio = ma / mb
    met += ok(ratio)
    print("%-26s %8.3f%-2s %8.3f%-2s %-10s %6.2fx %-9s %s" % (label, ma, "M" if unit == "Mops/s" else "us",
          mb, "M" if unit == "Mops/s" else "us", refname, ratio, goal, "met" if ok(ratio) else "MISSED"))
    if CS["nfstorm"] and CS["fio"]:
        print("%-26s context switches per op: nfstorm %.2f, fio %.2f" %
              ("", sum(CS["nfstorm"]) / len(CS["nfstorm"]), sum(CS["fio"]) / len(CS["fio"])))
print("%-26s %s" % ("1,000 agents: bytes, CPU", "see bench/scale.sh"))

# The rule beside the rows: latency still from issue to completion, so on
# the same workload nfstorm's percentiles stay within fio's (psync, tmpfs).
if "psync" in want:
    a, b = [], []
    for k in range(rounds):
        order = ((a, rows[1][4]), (b, lambda: fio("fio", ["--ioengine=psync", "--size=256m",
                                                           "--filename=" + PFILE])))
        for acc, fn in (order if k % 2 == 0 else order[::-1]):
            acc.append(fn())
    p = [sum(x[i] for x in a) / rounds for i in (2, 3)]
    q = [sum(x[i] for x in b) / rounds for i in (2, 3)]
    print("psync 4k randread latency: nfstorm p50 %.2f us p99 %.2f us, fio p50 %.2f us p99 %.2f us (%s)" %
          (p[0], p[1], q[0], q[1], "within fio's" if p[0] <= q[0] * 1.05 and p[1] <= q[1] * 1.05 else "ABOVE fio's"))
print("%d of %d rows meet their goal (figures from a loaded machine are a smoke check only)" % (met, ran))
PY
