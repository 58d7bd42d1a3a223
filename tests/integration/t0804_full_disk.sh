#!/usr/bin/env bash
# A full file system (a 16 MiB tmpfs): the agent refuses a phase that
# cannot fit, with the figures, before writing; a disk that fills up during
# a write phase ends the job at once with ENOSPC named (not a run that
# counts failures until its runtime is over); a metadata job that hits
# ENOSPC leaves no file behind; and the agent serves the next run (issue 9,
# defects 11 and 14, agent side).
source "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
S=$T/small; mkdir -p "$S"
mount -t tmpfs -o size=16m tmpfs "$S" 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount "$S" 2>/dev/null; cleanup' EXIT
start_agent "$S"
run() {  # run NAME ARGS...: exit status in rc, output in $T/NAME
  local name=$1; shift
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/$name.json" --name="$name" "$@" \
    >"$T/$name" 2>&1; rc=$?
}

# 1. pre-flight: 1 PiB cannot fit: refused with the figures, nothing written
run huge --rw=write --bs=1m --size=1p --directory="$S"
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "size=1p on 16 MiB: exit $rc"
grep -Eq "not enough space: needs 1PiB, 1[56](\.[0-9]+)?MiB free on $S" "$T/huge" \
  || fail "pre-flight refusal without the figures: $(tail -n1 "$T/huge")"
[ -z "$(ls -A "$S")" ] || fail "a refused phase left files: $(ls "$S")"

# 2. the disk fills up during the phase (12 MiB planned; 10 MiB taken
#    once the phase has started, in its startdelay): the job stops at once
#    with ENOSPC named.  A sparse file (fallocate=none): preallocated, the
#    space would be the job's before the filler came (2b).  The filler
#    waits for "started on" (the space check and layout are done by then),
#    not a fixed sleep a loaded machine outlasts
bgrun() {  # bgrun NAME ARGS...: a run in the background, its pid in bg
  local name=$1; shift
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --json "$T/$name.json" --name="$name" "$@" \
    >"$T/$name" 2>&1 &
  bg=$!
}
SECONDS=0
bgrun fill --rw=write --bs=64k --size=12m --directory="$S" --startdelay=3 --runtime=30 --time_based \
  --fallocate=none
wait_grep "$T/fill" "phase 1/1 fill: started on" || fail "the fill phase did not start: $(tail -n3 "$T/fill")"
dd if=/dev/zero of="$S/filler" bs=1M count=10 status=none 2>/dev/null
wait $bg; rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "disk full during the phase: exit $rc: $(tail -n3 "$T/fill")"
[ $SECONDS -le "$(bound_s 15)" ] || fail "disk full during the phase: the run went on for ${SECONDS}s (goal 15 s + 2 baselines of ${BASE_MS} ms)"
grep -q "write failed: ENOSPC (No space left on device)" "$T/fill" \
  || fail "full disk not named: $(grep -m1 -iE 'error|fail' "$T/fill")"
rm -f "$S"/*
# 2b. fio's default, fallocate=native: the job's 12 MiB are reserved before
#     its first write, so the filler is the one refused, and the job runs
bgrun prealloc --rw=write --bs=64k --size=12m --directory="$S" --startdelay=2 --runtime=2 --time_based
wait_grep "$T/prealloc" "phase 1/1 prealloc: started on" || fail "the prealloc phase did not start: $(tail -n3 "$T/prealloc")"
dd if=/dev/zero of="$S/filler" bs=1M count=10 status=none 2>"$T/dd.err"; echo "dd $?" >"$T/dd.rc"
wait $bg; rc=$?
[ $rc -eq 0 ] || fail "preallocated job on a disk filling up: exit $rc: $(tail -n3 "$T/prealloc")"
grep -q "No space left" "$T/dd.err" || fail "the filler was not refused: $(cat "$T/dd.rc" "$T/dd.err")"
rm -f "$S"/*

# 2c. two agents in one run, each laying out 10 MiB of 16: they race, so
#     either the later one's space check sees the other's reservation and
#     refuses, or both pass and one preallocation runs out of space and
#     fails that job before any write; both name ENOSPC or the figures
#     (before: ignored, and the job wrote until the disk refused it).  The
#     preallocation's ENOSPC on its own, without a race: t1652 (faultfs)
AGENT1=$AGENT_ADDR; start_agent "$S"; AGENT2=$AGENT_ADDR
timeout 60 "$NFSTORM" run --agents "$AGENT1,$AGENT2" --quiet --name=two --rw=write --bs=64k --size=10m \
  --directory="$S" --filename_format='$jobname.$agent' >"$T/two" 2>&1; rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "preallocation past the free space: exit $rc: $(tail -n3 "$T/two")"
grep -Eq "laying out [^ ]+ failed: ENOSPC|job 'two': not enough space: needs 10MiB, [0-9.]+MiB free" "$T/two" \
  || { cat "$T/two" >&2; fail "two agents on one small disk: neither ENOSPC nor the figures named"; }
rm -f "$S"/*
AGENT_ADDR=$AGENT1

# 2d. two jobs of one phase under two --allow roots on one file system:
#     their needs are summed on it (before: each root was a place of its
#     own, both passed, and the second ran out of space while laying out)
mkdir -p "$S/ra" "$S/rb"
start_agent "$S/ra" --allow "$S/rb"
printf '[global]\nrw=write\nbs=64k\nsize=10m\n[a]\ndirectory=%s/ra\n[b]\ndirectory=%s/rb\n' "$S" "$S" >"$T/two-roots.fio"
timeout 60 "$NFSTORM" run "$T/two-roots.fio" --agents "$AGENT_ADDR" --quiet >"$T/tworoots" 2>&1; rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "two roots past the free space: exit $rc: $(tail -n3 "$T/tworoots")"
grep -Eq "job 'a': not enough space: needs 20MiB, 1[56](\.[0-9]+)?MiB free on $S/ra" "$T/tworoots" \
  || { cat "$T/tworoots" >&2; fail "two roots' needs not summed on one file system"; }
[ -z "$(find "$S" -type f)" ] || fail "a refused phase left files: $(find "$S" -type f)"
# 2e. ... but two jobs writing one shared file need it once: 10 MiB, not 20
printf '[global]\nrw=write\nbs=64k\nsize=10m\nfilename=%s/ra/shared\n[a]\n[b]\n' "$S" >"$T/shared.fio"
timeout 60 "$NFSTORM" run "$T/shared.fio" --agents "$AGENT_ADDR" --quiet >"$T/shared" 2>&1; rc=$?
[ $rc -eq 0 ] || { cat "$T/shared" >&2; fail "two jobs sharing one 10 MiB file refused on 16 MiB: exit $rc"; }
[ "$(stat -c %s "$S/ra/shared")" -eq 10485760 ] || fail "the shared file is $(stat -c %s "$S/ra/shared") bytes"
rm -rf "$S"/*
AGENT_ADDR=$AGENT1

# 3. metadata creates that hit ENOSPC: named, and no file left behind
run md --rw=metadata --nrfiles=100 --filesize=1m --directory="$S"
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "metadata on a full disk: exit $rc"
grep -q "create failed: ENOSPC (No space left on device)" "$T/md" \
  || fail "metadata ENOSPC not named: $(tail -n1 "$T/md")"
left=$(find "$S" -type f | wc -l)
[ "$left" -eq 0 ] || fail "metadata job left $left files after ENOSPC"
# the same names again, small enough to fit: no EEXIST from leftovers
run md2 --rw=metadata --nrfiles=100 --filesize=4k --directory="$S"
[ $rc -eq 0 ] || fail "metadata run after ENOSPC: exit $rc: $(tail -n1 "$T/md2")"
py "$T/md2.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["phases"][0]["ops"]["create"]
assert c["ops"] == 100 and c.get("errors", 0) == 0, c
PY
# 4. the agent serves the next run
run after --rw=write --bs=4k --size=1m --filename="$S/g"
[ $rc -eq 0 ] || fail "agent does not serve the run after a full disk: $(tail -n1 "$T/after")"
echo "full disk: refused with figures, ENOSPC named and ended at once, no metadata leftovers, agent serves on"
