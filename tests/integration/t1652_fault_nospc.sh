#!/usr/bin/env bash
# A file system that says it has room (statfs) but refuses the space (faultfs
# nospc: ENOSPC on fallocate and write, as when another client filled the
# disk after the check): a preallocating job (fallocate=native, posix, keep)
# fails before its first write with the file and ENOSPC named, and leaves no
# file it created; a sparse job (fallocate=none) ends at its first write with
# ENOSPC named instead of counting failures for its runtime; the agent then
# serves the next run.  Deterministic, unlike two agents racing for one
# small disk (t0804 2c).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
# s*: only the first MiB refuses, so a sparse layout's one byte at the
# end gets through and the job's first write is the one refused
faultfs_mount "nospc,file=p*" "nospc,file=s*,len=1m"
start_agent "$FFS_M"
run() {  # run NAME ARGS...: exit status in rc, output in $T/NAME, result in $T/NAME.json
  local name=$1; shift
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/$name.json" --name="$name" \
    --directory="$FFS_M" --rw=write --bs=64k --size=4m "$@" >"$T/$name" 2>&1; rc=$?
  [ $rc -ne 124 ] || fail "$name: hung (killed after 60 s)"
}
writes() {  # writes NAME: write ops the result counts (ok and failed)
  py "$T/$1.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
w = ph[0]["ops"].get("write", {}) if ph else {}
print(w.get("ops", 0) + w.get("errors", 0))
PY
}
for mode in native posix keep; do
  : >"$FFS_LOG"
  run "p$mode" --fallocate=$mode
  [ $rc -ne 0 ] || fail "fallocate=$mode refused with ENOSPC: exit 0"
  how=" (fallocate=$mode)"; [ $mode = native ] && how=    # the default goes unsaid
  grep -Fq "laying out $FFS_M/p$mode.0.0.0$how failed: ENOSPC (No space left on device)" \
    "$T/p$mode" || { cat "$T/p$mode" >&2; fail "fallocate=$mode: ENOSPC and the file not named"; }
  grep -q "^kind=nospc file=p$mode" "$FFS_LOG" || fail "fallocate=$mode: faultfs refused nothing: $(cat "$FFS_LOG")"
  # the refusal came from the preallocation (the whole region at once), not a write
  awk '/^kind=nospc/ { for (i = 1; i <= NF; i++) if ($i ~ /^io_len=/) { split($i, a, "="); if (a[2] < 4194304) bad = 1 } }
       END { exit bad }' "$FFS_LOG" || fail "fallocate=$mode: a write reached the disk: $(cat "$FFS_LOG")"
  if [ -s "$T/p$mode.json" ]; then
    n=$(writes "p$mode"); [ "$n" -eq 0 ] || fail "fallocate=$mode: $n writes counted before the refusal"
  fi
  left=$(ls "$FFS_B" | grep -c "^p$mode")
  [ "$left" -eq 0 ] || fail "fallocate=$mode: the refused job left its file: $(ls "$FFS_B")"
done

# sparse: the first write is refused and ends the job at once
SECONDS=0
run snone --fallocate=none --runtime=30 --time_based
[ $rc -ne 0 ] || fail "fallocate=none on a refusing disk: exit 0"
[ $SECONDS -le 15 ] || fail "fallocate=none: the job went on for ${SECONDS}s after ENOSPC"
grep -q "write failed: ENOSPC (No space left on device)" "$T/snone" \
  || { cat "$T/snone" >&2; fail "fallocate=none: ENOSPC not named"; }
# and a layout that meets the refusal names it, with the mode
run pnone --fallocate=none
grep -Fq "laying out $FFS_M/pnone.0.0.0 (fallocate=none) failed: ENOSPC" "$T/pnone" \
  || { cat "$T/pnone" >&2; fail "fallocate=none: the layout's ENOSPC not named"; }

# the agent serves the next run, on a file faultfs lets through
run after --filename="$FFS_M/q" --fallocate=native
[ $rc -eq 0 ] || fail "agent does not serve the run after ENOSPC: $(tail -n 3 "$T/after")"
[ "$(writes after)" -eq 64 ] || fail "the next run wrote $(writes after) blocks, not 64"
[ "$(stat -c %s "$FFS_B/q")" -eq 4194304 ] || fail "the next run's file is $(stat -c %s "$FFS_B/q") bytes"
echo "nospc: preallocation (native, posix, keep) refused before any write, file named and removed; sparse ends at the first write; agent serves on"
