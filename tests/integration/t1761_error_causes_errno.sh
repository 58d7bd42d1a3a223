#!/usr/bin/env bash
# Failed ops name their errno (issue 21, item 2), over faultfs: every
# second read of r.dat fails with EIO (the job goes on: 8 of 16 reads
# fail), and the write at 64 KiB of w.dat fails with ENOSPC (which ends the
# job: 1 of 17 writes fails).  Text and JSON give each cause with its
# count, first offset and file; the failed reads are in no histogram.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount "eio,file=r.dat,every=2" "nospc,file=w.dat,off=64k,len=4k"
start_agent "$FFS_M"
head -c 65536 /dev/urandom >"$FFS_B/r.dat"    # beside faultfs: no read counted
run() {  # run NAME ARGS...: exit status in rc, output in $T/NAME, result in $T/NAME.json
  local name=$1; shift
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/$name.json" --name="$name" \
    --bs=4k "$@" >"$T/$name" 2>&1; rc=$?
  [ $rc -ne 124 ] || fail "$name: hung (killed after 60 s)"
}
run r --filename=r.dat --rw=read --size=64k
[ $rc -eq 1 ] || fail "8 of 16 reads failed: exit $rc, want 1: $(tail -n2 "$T/r")"
[ "$(grep -c '^kind=eio' "$FFS_LOG")" -eq 8 ] || fail "faultfs failed $(grep -c '^kind=eio' "$FFS_LOG") reads, want 8"
host=$(hostname)
grep -Fxq "errors: read 8 of 16 ops failed (50.00%)" "$T/r" || fail "errors line: $(cat "$T/r")"
grep -Fxq "  agent 0 ($host) read: 8 x EIO (Input/output error), first at offset 4096 in $FFS_M/r.dat" "$T/r" \
  || fail "no EIO cause line: $(cat "$T/r")"
grep -Fq "8 of 16 read ops failed (EIO (Input/output error))" "$T/r" || fail "verdict without the cause: $(tail -n2 "$T/r")"
run w --filename=w.dat --rw=write --size=256k --fallocate=none
[ $rc -ne 0 ] || fail "a write refused with ENOSPC: exit 0"
grep -Fxq "  agent 0 ($host) write: 1 x ENOSPC (No space left on device), first at offset 65536 in $FFS_M/w.dat" "$T/w" \
  || fail "no ENOSPC cause line: $(cat "$T/w")"
py "$T/r.json" "$T/w.json" "$FFS_M" <<'PY'
import json, sys
m = sys.argv[3]
ph = json.load(open(sys.argv[1]))["phases"][0]
rd = ph["ops"]["read"]
assert (rd["ops"], rd["errors"]) == (16, 8), rd
c = ph["agents"][0]["errors"]["read"]
assert c["failed"] == 8 and c["other"] == 0, c
assert c["causes"] == [{"kind": "errno", "name": "EIO", "errno": 5, "text": "EIO (Input/output error)",
                        "count": 8, "first_offset": 4096, "file": m + "/r.dat"}], c["causes"]
assert ph["errors"]["read"]["causes"][0]["first_agent"] == 0
# the 8 reads that failed are in no histogram (phase, agent, intervals)
assert rd["lat_ns"]["hist"]["count"] == 8, rd["lat_ns"]["hist"]
assert ph["agents"][0]["ops"]["read"]["lat_ns"]["hist"]["count"] == 8
assert sum(iv["ops"]["read"]["lat_ns"]["hist"]["count"] for iv in ph["intervals"] if "read" in iv["ops"]) == 8
w = json.load(open(sys.argv[2]))["phases"][0]
wr = w["ops"]["write"]
assert (wr["ops"], wr["errors"], wr["lat_ns"]["hist"]["count"]) == (17, 1, 16), wr
c = w["agents"][0]["errors"]["write"]["causes"]
assert [(x["name"], x["errno"], x["count"], x["first_offset"], x["file"]) for x in c] == \
    [("ENOSPC", 28, 1, 65536, m + "/w.dat")], c
PY
echo "ok: EIO and ENOSPC named with counts and first offsets; failed reads out of the histograms"
