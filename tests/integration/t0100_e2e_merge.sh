#!/usr/bin/env bash
# 2 local agents, 4k randwrite then randread for 2 s: the merged report is
# the exact sum of the agents and of the intervals; bytes = ops x bs; the
# files written have the planned sizes.
source "$(dirname "$0")/lib.sh"
D=$T/data; mkdir -p "$D"
for rw in randwrite randread; do
  timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/$rw.json" --name=t --rw=$rw --bs=4k \
    --size=8m --numjobs=2 --runtime=2 --time_based --directory="$D" >"$T/$rw.out" 2>&1 \
    || fail "$rw: $(tail -n3 "$T/$rw.out")"
  check_merge "$T/$rw.json" $rw 4096 1000 1.9 3.0
  py "$T/$rw.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["agents"]) == 2, r["agents"]
for a in r["phases"][0]["agents"]:
    assert a["cpu"]["cores"] >= 1 and a["cpu"]["user_s"] + a["cpu"]["sys_s"] > 0, a["cpu"]
PY
done
# 2 agents x 2 jobs, one 8 MiB file each, named <name>.<agent>.<job>.<file>
for a in 0 1; do for j in 0 1; do
  f=$D/t.$a.$j.0
  [ -f "$f" ] || fail "missing $f"
  [ "$(stat -c %s "$f")" -eq $((8 << 20)) ] || fail "$f has $(stat -c %s "$f") bytes, want 8 MiB"
done; done
[ "$(ls "$D" | wc -l)" -eq 4 ] || fail "want 4 files, have: $(ls "$D")"
grep -q "^t " "$T/randread.out" || fail "no phase row in the text report"
echo "merge exact"
