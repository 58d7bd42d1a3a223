#!/usr/bin/env bash
# Benchmark (not a test): nfstorm's libaio engine against Debian's fio
# (--ioengine=libaio, its defaults: iodepth_batch_submit=1, complete_min=1)
# on a local directory, 4k random reads and writes at iodepth 1, 16 and 64,
# one job, direct=1 where the file system allows it (probed with dd), both
# on the same pre-laid-out file, alternating runs, both pinned to the same
# CPU (the highest one this process may use; BENCH_PIN=no leaves placement to the scheduler), and
# both with their default buffers (random, scrambled per write), except on
# zram, where both get --scramble_buffers=0: zram compresses every page and
# its cost follows the bytes (scrambled pages cost it up to 40% of its
# write IOPS, differently for fio's and nfstorm's stamps, 64k against 110k
# IOPS at iodepth 16 here), so only unchanged buffers, random and alike in
# both, compare the engines rather than zram's taste in bytes.
# Prints per row the
# mean IOPS of each, the IOPS ratio nfstorm/fio, CPU seconds per million
# ops of each (all processes: fio's, or nfstorm's coordinator plus its
# --local agent) and the CPU-per-op ratio nfstorm/fio (< 1: nfstorm is
# cheaper).  "rounds' ratio": the median and the range of the per-round
# ratios (each round runs both back to back, who goes first alternating).  Exits 77 where the kernel refuses an AIO context.
# Usage: bench/libaio-vs-fio.sh [RUNTIME_S] [ROUNDS] [DIR|ram|zram]
#   DIR defaults to a new directory under /var/tmp (a disk file system:
#   tmpfs accepts O_DIRECT only on Linux 6.6+).  "ram" (root): a 600 MiB
#   ext4 on a loop device over a file in /dev/shm, made and removed here: a
#   real block device with asynchronous O_DIRECT whose speed does not drift
#   (a shared virtual disk drifts 10-20% between runs seconds apart, more
#   than the engines differ), so the ratio is the engines' own.  "zram"
#   (root, a kernel with zram-control): a 600 MiB ext4 on a new zram device,
#   removed at the end: requests complete inside io_submit with no worker
#   thread or device in between, so every microsecond measured is the
#   engine's and the kernel's own on one CPU, the lowest-noise comparison
#   this machine offers (it measures the engines' cost per op, not a disk).
set -eu
cd "$(dirname "$0")/.."
command -v fio >/dev/null || { echo "fio is not installed (scripts/install-deps.sh)"; exit 1; }
RUNTIME=${1:-5}
ROUNDS=${2:-3}
BASE=${3:-/var/tmp}
RAM_IMG= RAM_DEV= RAM_MNT= ZRAM_ID=
ram_cleanup() {
  [ -z "$RAM_MNT" ] || umount "$RAM_MNT" 2>/dev/null || true
  [ -z "$RAM_DEV" ] || losetup -d "$RAM_DEV" 2>/dev/null || true
  [ -z "$RAM_MNT" ] || rmdir "$RAM_MNT" 2>/dev/null || true
  [ -z "$RAM_IMG" ] || rm -f "$RAM_IMG"
  [ -z "$ZRAM_ID" ] || echo "$ZRAM_ID" > /sys/class/zram-control/hot_remove 2>/dev/null || true
}
if [ "$BASE" = ram ]; then
  [ "$(id -u)" = 0 ] || { echo "bench: 'ram' needs root (losetup, mount)"; exit 1; }
  trap ram_cleanup EXIT
  RAM_IMG=$(mktemp /dev/shm/nfstorm-bench.XXXXXX.img)
  truncate -s 600M "$RAM_IMG"
  RAM_DEV=$(losetup -f --show "$RAM_IMG")
  mkfs.ext4 -q -F "$RAM_DEV"
  RAM_MNT=$(mktemp -d /tmp/nfstorm-bench-mnt.XXXXXX)
  mount "$RAM_DEV" "$RAM_MNT"
  BASE=$RAM_MNT
  echo "device: ext4 on $RAM_DEV (a loop device over $RAM_IMG, RAM)"
elif [ "$BASE" = zram ]; then
  [ "$(id -u)" = 0 ] || { echo "bench: 'zram' needs root (zram-control, mount)"; exit 1; }
  [ -w /sys/class/zram-control/hot_add ] || { echo "bench: this kernel has no zram-control"; exit 1; }
  trap ram_cleanup EXIT
  ZRAM_ID=$(cat /sys/class/zram-control/hot_add)
  echo 600M > "/sys/block/zram$ZRAM_ID/disksize"
  mkfs.ext4 -q -F "/dev/zram$ZRAM_ID"
  RAM_MNT=$(mktemp -d /tmp/nfstorm-bench-mnt.XXXXXX)
  mount "/dev/zram$ZRAM_ID" "$RAM_MNT"
  BASE=$RAM_MNT
  echo "device: ext4 on /dev/zram$ZRAM_ID ($(cat /sys/block/zram$ZRAM_ID/comp_algorithm | tr -d '[]' | cut -d' ' -f1)... RAM, completes in io_submit)"
fi
PIN=
if [ "${BENCH_PIN:-yes}" != no ] && command -v taskset >/dev/null; then
  PIN=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
fi
DIR=$(mktemp -d "$BASE/nfstorm-bench.XXXXXX")
trap 'rm -rf "$DIR"; ram_cleanup' EXIT
DIRECT=1
dd if=/dev/zero of="$DIR/probe" bs=4k count=1 oflag=direct status=none 2>/dev/null || DIRECT=0
rm -f "$DIR/probe"
[ $DIRECT = 1 ] || echo "note: $DIR refuses O_DIRECT; running buffered (direct=0)"
python3 - "$DIR" "$RUNTIME" "$ROUNDS" "$DIRECT" "$PIN" "${ZRAM_ID:+zram}" <<'PY'
import json, os, resource, subprocess, sys
d, runtime, rounds, direct = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
same_bytes = ["--scramble_buffers=0"] if sys.argv[6] == "zram" else []
pin = ["taskset", "-c", sys.argv[5]] if sys.argv[5] else []
size = "256m"
data = os.path.join(d, "bench.dat")
workloads = [(rw, qd) for rw in ("randread", "randwrite") for qd in (1, 16, 64)]

def timed(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(pin + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        if "libaio refused" in out.stderr + out.stdout:
            print("skipping: the kernel refuses an AIO context"); sys.exit(77)
        sys.exit("failed: %s\n%s" % (" ".join(cmd), (out.stderr + out.stdout)[-500:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out.stdout, cpu

def job_args(rw, qd, name):
    return ["--name=%s" % name, "--rw=%s" % rw, "--bs=4k", "--ioengine=libaio",
            "--iodepth=%d" % qd, "--size=%s" % size, "--numjobs=1", "--direct=%d" % direct,
            "--runtime=%d" % runtime, "--time_based", "--filename=%s" % data] + same_bytes

def run_fio(rw, qd):
    out, cpu = timed(["fio", "--group_reporting", "--output-format=json"] + job_args(rw, qd, "fio"))
    j = json.loads(out[out.index("{"):])["jobs"][0]
    op = "read" if "read" in rw else "write"
    return j[op]["iops"], j[op]["total_ios"], cpu

def run_nfstorm(rw, qd):
    res = os.path.join(d, "r.json")
    _, cpu = timed(["bin/nfstorm", "run", "--local", "1", "--quiet", "--json", res]
                   + job_args(rw, qd, "nfs"))
    p = json.load(open(res))["phases"][0]
    op = "read" if "read" in rw else "write"
    return p["ops"][op]["iops"], p["ops"][op]["ops"], cpu

# lay the file out once, outside every measurement
with open(data, "wb") as f:
    chunk = os.urandom(1 << 20)
    for _ in range(256):
        f.write(chunk)
print("libaio, 4k, 1 job, direct=%d, %d s x %d alternating rounds, %s, %s" % (
      direct, runtime, rounds, d, "both on CPU %s" % sys.argv[5] if pin else "not pinned"))
print("%-15s %10s %12s %7s %13s %12s %16s %9s" % ("workload", "fio IOPS", "nfstorm IOPS", "ratio",
                                                "rounds' ratio", "fio CPUs/Mop", "nfstorm CPUs/Mop",
                                                "CPU ratio"))
for rw, qd in workloads:
    f = [0.0, 0, 0.0]; n = [0.0, 0, 0.0]; ratios = []
    for k in range(rounds):           # alternate so drift hits both alike,
        order = ((f, run_fio), (n, run_nfstorm))    # and who goes first too
        got = {}
        for acc, fn in (order if k % 2 == 0 else order[::-1]):
            iops, ops, cpu = fn(rw, qd)
            acc[0] += iops / rounds; acc[1] += ops; acc[2] += cpu
            got[fn] = iops
        ratios.append(got[run_nfstorm] / got[run_fio])
    fc, nc = f[2] / f[1] * 1e6, n[2] / n[1] * 1e6
    ratios.sort()
    # the device's own drift between two runs seconds apart is often 10-20%
    # here (a shared virtual disk): the median round and the spread say more
    # than one mean
    med = ratios[len(ratios) // 2] if len(ratios) % 2 else (ratios[len(ratios) // 2 - 1] + ratios[len(ratios) // 2]) / 2
    print("%-15s %10.0f %12.0f %7.2f %5.2f %.2f-%.2f %12.2f %16.2f %9.2f" % (
          "%s qd%d" % (rw, qd), f[0], n[0], n[0] / f[0], med, ratios[0], ratios[-1], fc, nc, nc / fc))
PY
