#!/usr/bin/env bash
# Benchmark (not a test): nfstorm's nfs engine against fio 3.33's nfs engine,
# both on the same libnfs and the same loopback nfs-ganesha (NFSv3), runs
# alternating (the order flips every round so drift hits both alike).
#
# Rows: 4k randread and randwrite at iodepth 1, 4, 16, 64; 1M sequential
# read and write at iodepth 4.  Per row, the mean over ROUNDS runs of: IOPS
# of each and their ratio, client CPU per op of each (microseconds) and their
# ratio, and p50 latency of each.  Then one row with nconnect=1 against
# nconnect=4 (nfstorm only).  Rows that miss the issue's goals are flagged:
#   IOPS      nfstorm >= 1.0x fio in every run, at every depth
#   CPU/op    nfstorm <= 0.7x fio in every run at iodepth >= 16
#   qd1 p50   nfstorm's p50 <= fio's (mean over the runs)
# Client CPU: fio's job process (usr_cpu + sys_cpu of its JSON, over the
# job's runtime), nfstorm's agent process over the phase (user_s +
# sys_s of the result's agents[].cpu: every thread of the agent, heartbeats
# included).
# Latency: fio's total latency (lat_ns, lat_percentiles=1), nfstorm's op
# latency (from issue to completion).
#
# fio: bench/build-fio-nfs.sh (builds fio 3.33 with its nfs engine into
# build/bench-fio/, or FIO=/path/to/fio with ioengine=nfs).
# Usage: bench/nfs-vs-fio.sh [RUNTIME_S] [ROUNDS]   (default 5 3)
# Exit: 0 when every run worked (whatever the goals), 1 otherwise.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
RUNTIME=${1:-5}
ROUNDS=${2:-3}
command -v ganesha.nfsd >/dev/null 2>&1 || { echo "nfs-vs-fio: nfs-ganesha is not installed" >&2; exit 1; }
[ -x bin/nfstorm ] && [ -x bin/nfstorm-agent ] || { echo "nfs-vs-fio: build first (make)" >&2; exit 1; }
FIOBIN=$(bench/build-fio-nfs.sh) || exit 1

source tests/nfs_server.sh
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nfstorm-nfs-vs-fio.XXXXXX")
AGENT_PID=""
stop_all() {
  if [ -n "$AGENT_PID" ]; then kill "$AGENT_PID" 2>/dev/null; wait "$AGENT_PID" 2>/dev/null; fi
  nfs_server_stop; rm -rf "$WORK"
}
trap stop_all EXIT
trap 'exit 130' INT TERM
mkdir -p "$WORK/export"
nfs_server_start "$WORK/export" || { echo "nfs-vs-fio: NFS server did not start" >&2; exit 1; }

# One agent for every nfstorm run, as a client machine would have.
bin/nfstorm-agent --listen 127.0.0.1:0 --insecure --allow "$WORK" \
  --allow-nfs "nfs://127.0.0.1$WORK/export" >"$WORK/agent.out" 2>"$WORK/agent.err" &
AGENT_PID=$!
for _ in $(seq 50); do grep -q '^listening on ' "$WORK/agent.out" && break; sleep 0.1; done
ADDR=$(sed -n 's/^listening on //p' "$WORK/agent.out")
[ -n "$ADDR" ] || { echo "nfs-vs-fio: agent did not start: $(cat "$WORK/agent.err")" >&2; exit 1; }

python3 - "$FIOBIN" "$ADDR" "$NFS_URL3" "$WORK" "$RUNTIME" "$ROUNDS" <<'PY'
import json, os, subprocess, sys

fio, addr, url, work, runtime, rounds = sys.argv[1:4] + [sys.argv[4], int(sys.argv[5]), int(sys.argv[6])]
SIZE = "256m"
FILE = "benchdata"
rows = [  # label, rw, bs, iodepth
    ("4k randread  qd1", "randread", "4k", 1), ("4k randread  qd4", "randread", "4k", 4),
    ("4k randread  qd16", "randread", "4k", 16), ("4k randread  qd64", "randread", "4k", 64),
    ("4k randwrite qd1", "randwrite", "4k", 1), ("4k randwrite qd4", "randwrite", "4k", 4),
    ("4k randwrite qd16", "randwrite", "4k", 16), ("4k randwrite qd64", "randwrite", "4k", 64),
    ("1M read      qd4", "read", "1m", 4), ("1M write     qd4", "write", "1m", 4),
]

def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("nfs-vs-fio: failed: %s\n%s" % (" ".join(cmd), (p.stderr or p.stdout)[-800:]))
    return p.stdout

def opname(rw):
    return "read" if "read" in rw else "write"

def run_fio(rw, bs, qd):
    out = run([fio, "--name=fio", "--ioengine=nfs", "--nfs_url=" + url, "--filename=" + FILE,
               "--rw=" + rw, "--bs=" + bs, "--size=" + SIZE, "--iodepth=%d" % qd,
               "--runtime=%d" % runtime, "--time_based", "--lat_percentiles=1",
               "--output-format=json"])
    j = json.loads(out[out.index("{"):])["jobs"][0]
    o = j[opname(rw)]
    ios = o["total_ios"]
    cpu_s = (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * j["job_runtime"] / 1000.0
    return {"iops": o["iops"], "cpu_us": cpu_s / ios * 1e6 if ios else float("nan"),
            "p50_us": o["lat_ns"]["percentile"]["50.000000"] / 1000.0}

def run_nfstorm(rw, bs, qd, nconnect=1):
    res = os.path.join(work, "r.json")
    run(["bin/nfstorm", "run", "--agents", addr, "--quiet", "--json", res, "--name=nfstorm",
         "--ioengine=nfs", "--nfs_url=" + url, "--filename=" + FILE, "--rw=" + rw, "--bs=" + bs,
         "--size=" + SIZE, "--iodepth=%d" % qd, "--nconnect=%d" % nconnect,
         "--runtime=%d" % runtime, "--time_based"])
    ph = json.load(open(res))["phases"][0]
    o = ph["ops"][opname(rw)]
    if o["errors"]:
        sys.exit("nfs-vs-fio: nfstorm %s %s qd%d: %d errors" % (rw, bs, qd, o["errors"]))
    cpu_s = sum(a["cpu"]["user_s"] + a["cpu"]["sys_s"] for a in ph["agents"])
    return {"iops": o["iops"], "cpu_us": cpu_s / o["ops"] * 1e6 if o["ops"] else float("nan"),
            "p50_us": o["lat_ns"]["p50"] / 1000.0}

def mean(xs):
    return sum(xs) / len(xs)

# the file both read, written once at full size (neither lays out reads the same way)
run(["bin/nfstorm", "run", "--agents", addr, "--quiet", "--name=layout", "--ioengine=nfs",
     "--nfs_url=" + url, "--filename=" + FILE, "--rw=write", "--bs=1m", "--size=" + SIZE])

print("nfs-vs-fio: %d s per run, %d rounds, fio %s, ganesha on 127.0.0.1 (NFSv3)" % (runtime, rounds, fio))
hdr = ("%-18s %9s %9s %6s %8s %8s %6s %8s %8s  %s" %
       ("workload", "fio IOPS", "nfs IOPS", "ratio", "fio us/op", "nfs us/op", "ratio",
        "fio p50", "nfs p50", "goals"))
print(hdr)
missed = 0
for label, rw, bs, qd in rows:
    f, n = [], []
    for k in range(rounds):
        order = ((f, lambda: run_fio(rw, bs, qd)), (n, lambda: run_nfstorm(rw, bs, qd)))
        for acc, fn in (order if k % 2 == 0 else order[::-1]):
            acc.append(fn())
    iops_r = [b["iops"] / a["iops"] for a, b in zip(f, n)]
    cpu_r = [b["cpu_us"] / a["cpu_us"] for a, b in zip(f, n)]
    miss = []
    if min(iops_r) < 1.0:
        miss.append("IOPS %.2fx in a run" % min(iops_r))
    if qd >= 16 and bs == "4k" and max(cpu_r) > 0.7:
        miss.append("CPU/op %.2fx in a run" % max(cpu_r))
    fp50, np50 = mean([a["p50_us"] for a in f]), mean([b["p50_us"] for b in n])
    if qd == 1 and np50 > fp50:
        miss.append("p50 above fio's")
    missed += bool(miss)
    print("%-18s %9.0f %9.0f %6.2f %8.1f %8.1f %6.2f %7.1fu %7.1fu  %s" %
          (label, mean([a["iops"] for a in f]), mean([b["iops"] for b in n]), mean(iops_r),
           mean([a["cpu_us"] for a in f]), mean([b["cpu_us"] for b in n]), mean(cpu_r),
           fp50, np50, "MISS: " + "; ".join(miss) if miss else "ok"))

# what nconnect does on this server: one 4k randread row, nfstorm only
c1, c4 = [], []
for k in range(rounds):
    order = ((c1, 1), (c4, 4))
    for acc, nc in (order if k % 2 == 0 else order[::-1]):
        acc.append(run_nfstorm("randread", "4k", 64, nc))
print("nconnect, 4k randread qd64: nconnect=1 %.0f IOPS %.1f us/op, nconnect=4 %.0f IOPS %.1f us/op (%.2fx IOPS)" %
      (mean([x["iops"] for x in c1]), mean([x["cpu_us"] for x in c1]),
       mean([x["iops"] for x in c4]), mean([x["cpu_us"] for x in c4]),
       mean([x["iops"] for x in c4]) / mean([x["iops"] for x in c1])))
print("%d of %d rows miss a goal (figures from a loaded machine are a smoke check only)" % (missed, len(rows)))
PY
