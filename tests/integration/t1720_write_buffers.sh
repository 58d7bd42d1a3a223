#!/usr/bin/env bash
# t1720: what writes put on storage, read back from the files a real agent
# wrote.  By default (fio's scramble_buffers) no two 4 KiB blocks are alike,
# across writes, jobs and a laid-out file, so a deduplicating server cannot
# store a run's writes as one block (before: every write from a slot sent
# the same bytes, a qd1 job's whole file was one block repeated, and a
# laid-out file one 1 MiB chunk repeated).  zero_buffers, scramble_buffers=0,
# buffer_compress_percentage and dedupe_percentage give what they say, on
# psync and libaio alike.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
run() {   # NAME ARGS...: a 4 MiB job writing $D/NAME, kept
  local name=$1; shift
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name="$name" --bs=4k --size=4m \
    --filename="$D/$name.dat" "$@" >"$T/$name.out" 2>&1 || fail "$name: $(tail -n3 "$T/$name.out")"
}
run plain --rw=write
run randqd8 --rw=randwrite --ioengine=libaio --iodepth=8
run fixed --rw=write --scramble_buffers=0
run zeros --rw=write --zero_buffers=1
run compress --rw=write --buffer_compress_percentage=60
run dedupe --rw=write --dedupe_percentage=50
run laidout --rw=read
run jobs --rw=write --numjobs=2 --filename_format="$D/jobs.\$jobnum.dat" --filename=
run wsg --rw=write --numjobs=2 --filename_format="$D/wsg.\$jobnum.dat" --filename= \
  --dedupe_percentage=50 --dedupe_mode=working_set --dedupe_global=1
# verify's header modes stamp each block over the buffer: zeros stay zeros
# around the header and the sector stamps (the warning names only dedupe)
run vzeros --rw=write --verify=crc32c --zero_buffers=1
grep -q "has no effect" "$T/vzeros.out" && fail "vzeros: a false warning: $(grep 'no effect' "$T/vzeros.out")"
py "$D" <<'PY'
import collections, os, sys, zlib
d = sys.argv[1]
def blocks(name):
    b = open(os.path.join(d, name), "rb").read()
    assert len(b) == 4 << 20, (name, len(b))
    return [b[i:i + 4096] for i in range(0, len(b), 4096)]
def unique(name):
    return len(set(blocks(name)))
for name in ("plain.dat", "randqd8.dat", "laidout.dat"):
    u = unique(name)
    print("%s: %d unique 4 KiB blocks of 1024" % (name, u))
    assert u == 1024, (name, u)
# scramble_buffers=0: one buffer, written 1024 times
u = unique("fixed.dat"); print("fixed.dat: %d unique" % u); assert u == 1, u
z = open(os.path.join(d, "zeros.dat"), "rb").read()
assert z == bytes(len(z)), "zero_buffers=1 wrote non-zero bytes"
c = open(os.path.join(d, "compress.dat"), "rb").read()
ratio = len(zlib.compress(c, 6)) / len(c)
print("compress.dat: zlib to %.3f of its size (60%% compressible: ~0.40)" % ratio)
assert 0.38 <= ratio <= 0.46, ratio
assert unique("compress.dat") == 1024                   # refilled per write
u = unique("dedupe.dat"); print("dedupe.dat: %d unique (50%% dedupe: ~512)" % u)
assert 430 <= u <= 600, u
j0, j1 = set(blocks("jobs.0.dat")), set(blocks("jobs.1.dat"))
print("jobs: %d and %d unique, %d in common" % (len(j0), len(j1), len(j0 & j1)))
assert len(j0) == len(j1) == 1024 and not (j0 & j1), (len(j0), len(j1), len(j0 & j1))
# a global working set (5% of 4 MiB = 51 pages): half of each job's writes
# are its pages, so the two files share them
w0, w1 = set(blocks("wsg.0.dat")), set(blocks("wsg.1.dat"))
print("working set, dedupe_global: %d and %d unique, %d in common" % (len(w0), len(w1), len(w0 & w1)))
assert 30 <= len(w0 & w1) <= 51, len(w0 & w1)
assert 440 <= len(w0) <= 620 and 440 <= len(w1) <= 620, (len(w0), len(w1))
v = open(os.path.join(d, "vzeros.dat"), "rb").read()
print("verify=crc32c zero_buffers: %.1f%% zero bytes" % (100.0 * v.count(0) / len(v)))
assert len(v) == 4 << 20 and v.count(0) > 0.9 * len(v), v.count(0)
PY
echo "t1720: PASS"
