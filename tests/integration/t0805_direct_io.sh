#!/usr/bin/env bash
# direct=1 on a real disk file system (ext4 or xfs under /var/tmp): a
# write phase lays out and writes, a read phase reads, both with O_DIRECT;
# a block size or offset that is not a multiple of the file system's
# direct I/O alignment is refused naming the key, its value and the
# alignment (issue 9, defect 12).
source "$(dirname "$0")/lib.sh"
D=/var/tmp/nfstorm-t0805.$$; mkdir -p "$D"; trap 'rm -rf "$D"; cleanup' EXIT
fs=$(stat -f -c %T "$D")
case "$fs" in ext2/ext3|ext4|xfs) ;; *) skip "/var/tmp is $fs, not ext4 or xfs" ;; esac
start_agent "$D"
run() {  # run NAME ARGS...
  local name=$1; shift
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/$name.json" --name="$name" --direct=1 \
    "$@" >"$T/$name" 2>&1; rc=$?
}
# (size-bound: the runtime is only a bound, generous for slow sanitizer builds)
run dw --rw=write --bs=4k --size=16m --filename="$D/direct" --runtime=120
[ $rc -eq 0 ] || fail "direct=1 write on $fs: exit $rc: $(tail -n1 "$T/dw")"
run dr --rw=randread --bs=4k --size=16m --filename="$D/direct" --runtime=2 --time_based
[ $rc -eq 0 ] || fail "direct=1 read on $fs: exit $rc: $(tail -n1 "$T/dr")"
# a read phase that lays out a new file through O_DIRECT, with an offset
run dl --rw=read --bs=64k --size=8m --offset=4m --filename="$D/laid"
[ $rc -eq 0 ] || fail "direct=1 layout on $fs: exit $rc: $(tail -n1 "$T/dl")"
py "$T/dw.json" "$T/dr.json" "$T/dl.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]
r = json.load(open(sys.argv[2]))["phases"][0]["ops"]["read"]
l = json.load(open(sys.argv[3]))["phases"][0]["ops"]["read"]
assert w["ops"] == 4096 and w.get("errors", 0) == 0, w
assert r["ops"] > 0 and r.get("errors", 0) == 0, r
assert l["ops"] == 128 and l.get("errors", 0) == 0, l
PY
# only the region is laid out: [4m, 12m), the first 4 MiB is a hole
[ "$(stat -c %s "$D/laid")" -eq $((12 << 20)) ] || fail "laid-out file is $(stat -c %s "$D/laid") bytes"
[ "$(du -k "$D/laid" | cut -f1)" -le $((8 * 1024 + 64)) ] || fail "layout wrote outside the job's region: $(du -k "$D/laid")"
# misaligned: refused by name, nothing measured
run bad --rw=write --bs=1000 --size=1m --filename="$D/bad"
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "bs=1000 with direct=1: exit $rc"
grep -Eq "direct=1 needs bs in multiples of [0-9]+ bytes.*bs=1000 is not" "$T/bad" \
  || fail "misaligned bs not named: $(tail -n1 "$T/bad")"
run badoff --rw=write --bs=4k --size=1m --offset=1000 --filename="$D/bad2"
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "offset=1000 with direct=1: exit $rc"
grep -Eq "direct=1 needs offset in multiples of [0-9]+ bytes.*offset=1000 is not" "$T/badoff" \
  || fail "misaligned offset not named: $(tail -n1 "$T/badoff")"
echo "direct=1 on $fs: write, read and layout work; misaligned bs and offset refused by name"
