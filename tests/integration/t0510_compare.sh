#!/usr/bin/env bash
# Two saved runs compared: labels, ratios against the first, unmatched phases listed.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
run() { timeout 60 "$NFSTORM" run --local 1 --quiet --label "$1" --json "$T/$1.json" --directory="$D" "${@:2}" \
  >"$T/$1.out" 2>&1 || fail "run $1: $(tail -n3 "$T/$1.out")"; }
run A --name=r --rw=randread --bs=4k --size=4m --runtime=1 --time_based --name=w --rw=randwrite --bs=4k --size=4m --runtime=1 --time_based --stonewall
run B --name=r --rw=randread --bs=4k --size=4m --runtime=1 --time_based
timeout 20 "$NFSTORM" compare "$T/A.json" "$T/B.json" --labels base,other --html "$T/c.html" >"$T/c" 2>&1 \
  || fail "compare: $(tail -n2 "$T/c")"
grep -q "base" "$T/c" && grep -q "other" "$T/c" || fail "labels missing: $(head -5 "$T/c")"
grep -Eq "^  read IOPS .* [0-9.]+x (better|worse|same)  " "$T/c" || fail "no ratio on read IOPS: $(cat "$T/c")"
grep -q "^unmatched phases" "$T/c" && grep -q "  w (randwrite, 4k): in base; missing from other" "$T/c" \
  || fail "unmatched phase not listed: $(cat "$T/c")"
py "$T/A.json" "$T/B.json" "$T/c" <<'PY'
import json, sys, re
a = json.load(open(sys.argv[1]))["phases"][0]["ops"]["read"]["iops"]
b = json.load(open(sys.argv[2]))["phases"][0]["ops"]["read"]["iops"]
line = [l for l in open(sys.argv[3]) if l.startswith("  read IOPS")][0]
got = float(re.search(r" ([0-9.]+)x (better|worse|same)", line).group(1))
assert abs(got - b / a) < 0.006, (got, b / a)
PY
grep -q 'data-view="compare-iops-4k"' "$T/c.html" || fail "compare HTML has no chart"
echo "compare ok"
