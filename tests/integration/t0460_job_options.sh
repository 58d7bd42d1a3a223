#!/usr/bin/env bash
# The job loop honours fio's counting and timing keys: number_ios, io_size,
# loops, startdelay, thinktime, ramp_time (excluded from the stats).
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/p.fio" <<F
[global]
directory=$D
bs=4k
size=1m
numjobs=2
[nios]
rw=randread
number_ios=100
runtime=10
time_based
[iosize]
stonewall
rw=write
io_size=256k
[loops]
stonewall
rw=read
size=256k
loops=3
[delay]
stonewall
rw=read
size=64k
startdelay=1
[think]
stonewall
rw=read
number_ios=20
thinktime=10ms
[ramp]
stonewall
rw=randread
ramp_time=1
runtime=1
time_based
F
timeout 90 "$NFSTORM" run --local 2 --quiet --json "$T/r.json" "$T/p.fio" >"$T/o" 2>&1 || fail "$(tail -n2 "$T/o")"
py "$T/r.json" <<'PY'
import json, sys
ph = {p["name"]: p for p in json.load(open(sys.argv[1]))["phases"]}
ops = lambda n, op: ph[n]["ops"][op]["ops"]
agents, jobs = 2, 2
assert ops("nios", "read") == 100 * agents * jobs, ops("nios", "read")
assert ph["nios"]["duration_s"] < 5, ph["nios"]["duration_s"]          # not the 10 s runtime
assert ops("iosize", "write") == 64 * agents * jobs, ops("iosize", "write")
assert ops("loops", "read") == 3 * 64 * agents * jobs, ops("loops", "read")
assert ops("delay", "read") == 16 * agents * jobs and ph["delay"]["duration_s"] >= 1.0, ph["delay"]["duration_s"]
assert ops("think", "read") == 20 * agents * jobs and ph["think"]["duration_s"] >= 0.2, ph["think"]["duration_s"]
r = ph["ramp"]
assert 0.9 <= r["duration_s"] <= 1.5, r["duration_s"]                  # the ramp second is not counted
assert abs(r["ops"]["read"]["iops"] * r["duration_s"] - r["ops"]["read"]["ops"]) < 0.01 * r["ops"]["read"]["ops"]
PY
echo "job options honoured"
