#!/usr/bin/env bash
# t1721: fio's fallocate= on a write job's new file, read back with stat:
# native (the default, as fio's on Linux) and posix preallocate the job's
# region (blocks >= its size) before the first write; none leaves a sparse
# file of the planned size; keep reserves the space and leaves the size to
# the writes; truncate sets the size with no blocks.  (Before: every write
# job's file was sparse, whatever fallocate= said, and writes landed in
# holes where fio's land in allocated space.)
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
run() {   # MODE: one 4 KiB write at offset 0 of a new 8 MiB job file
  local mode=$1 f=$D/$1.dat
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name="$mode" --rw=write --bs=4k \
    --size=8m --number_ios=1 --filename="$f" ${mode:+--fallocate=$mode} >"$T/$mode.out" 2>&1 ||
    fail "$mode: $(tail -n3 "$T/$mode.out")"
  echo "$mode $(stat -c '%s %b %B' "$f")" >>"$T/stat"
}
for m in native posix none keep truncate; do run $m; done
cat "$T/stat"
py "$T/stat" <<'PY'
import sys
st = {l.split()[0]: (int(l.split()[1]), int(l.split()[2]) * int(l.split()[3]))
      for l in open(sys.argv[1])}
M = 8 << 20
for m in ("native", "posix"):
    assert st[m][0] == M and st[m][1] >= M, (m, st[m])        # size and blocks
assert st["none"][0] == M and st["none"][1] <= 64 << 10, st["none"]
assert st["keep"][0] == 4096 and st["keep"][1] >= M, st["keep"]
assert st["truncate"][0] == M and st["truncate"][1] <= 64 << 10, st["truncate"]
PY
expect_fail "bad fallocate" "^nfstorm: --fallocate: bad value 'sometimes' \(want native, none, posix, keep or truncate\)" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --name=x --rw=write --size=1m --filename="$D/x" --fallocate=sometimes
printf '[x]\nrw=write\nsize=1m\nfallocate=often\n' >"$T/bad.fio"
expect_fail "bad fallocate in a plan" "bad.fio:4: bad value for 'fallocate': 'often' \(want native, none, posix, keep or truncate\)" \
  "$NFSTORM" run "$T/bad.fio" --agents "$AGENT_ADDR"
echo "t1721: PASS"
