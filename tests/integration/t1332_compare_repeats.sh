#!/usr/bin/env bash
# nfstorm-test: serial (rate-limited measurements: a chromium test beside it starved its runs to ~40 of 200 IOPS in two CI runs)
# Repeat sets compared: two rate-limited configurations (200 vs 2000 IOPS),
# three repetitions each, are a significant difference by Welch's t-test
# with the right direction and a ratio near 10; sd and error bars appear;
# a single run against a set says "no variance known".  Skips until
# `nfstorm run --repeat` exists (issue 13, H2a).
# Robust under load (it once failed on a busy machine at 300 vs 600 in
# 600 ms): a rate schedule caps each input from above (it catches up after
# a stall, but never runs ahead), so starvation can only lower a value;
# with a 10x gap one repetition of the fast input must lose more than half
# its ops before p reaches 0.05 with n=3, and the direction cannot flip.
source "$(dirname "$0")/lib.sh"
"$NFSTORM" --help 2>&1 | grep -q -- "--repeat" || skip "nfstorm run has no --repeat yet"
D=$T/d; mkdir -p "$D"
run() { timeout 90 "$NFSTORM" run --local 1 --quiet --label "$1" --json "$T/$1.json" --directory="$D" "${@:2}" \
  --name=r --rw=randread --bs=4k --size=4m --runtime=1 --time_based >"$T/$1.out" 2>&1 \
  || fail "run $1: $(tail -n3 "$T/$1.out")"; }
run slow --repeat 3 --rate_iops=200
run fast --repeat 3 --rate_iops=2000
run once --rate_iops=2000
for f in text md json html; do
  timeout 20 "$NFSTORM" compare "$T/slow.json" "$T/fast.json" "$T/once.json" --format $f >"$T/c.$f" 2>"$T/c.err" \
    || fail "compare --format $f: $(cat "$T/c.err")"
done
# each repetition's ops, duration and start lag: what a failure below needs
py "$T/slow.json" "$T/fast.json" <<'PY'
import json, sys
for f in sys.argv[1:]:
    reps = json.load(open(f))["repetitions"]
    print(f.rsplit("/", 1)[-1], [(x["phases"][0]["ops"]["read"]["ops"], round(x["phases"][0]["duration_s"], 3),
           round(x["phases"][0]["agents"][0].get("start_lag_ns", 0) / 1e6, 1)) for x in reps])
PY
py "$T/c.json" "$T/c.text" "$T/c.md" "$T/c.html" <<'PY'
import json, sys
J = json.load(open(sys.argv[1])); text, md, html = (open(p).read() for p in sys.argv[2:5])
assert [i["repetitions"] for i in J["inputs"]] == [3, 3, 1], J["inputs"]
m = [m for m in J["phases"][0]["metrics"] if m["op"] == "read" and m["metric"] == "iops"][0]
base, fast, once = m["inputs"]
assert base["n"] == 3 and base["sd"] is not None and base["ci95"][0] <= base["mean"] <= base["ci95"][1], base
# the schedules cap the means (one op of slack for the first); starvation can
# only lower them, so the ratio is bounded below and direction-safe
assert base["mean"] <= 200 * 1.05 and fast["mean"] <= 2000 * 1.05 and once["mean"] <= 2000 * 1.05, (base, fast, once)
assert 4 < fast["ratio"] and abs(fast["ratio"] - fast["mean"] / base["mean"]) < 1e-6 * fast["ratio"], fast
assert fast["verdict"] == "significant" and fast["p"] < 0.05 and fast["mark"] == "better", fast
assert once["verdict"] == "no variance known" and once["p"] is None and once["mark"] == "better", once
assert "significant (p" in text and "no variance known" in text
assert "\u00b1" in md, "no sd in the Markdown"
assert 'class="eb"' in html, "no error bars in the HTML"
print("slow %.1f +- %.2f IOPS, fast %.1f +- %.2f: ratio %.2f, p %.2g" %
      (base["mean"], base["sd"], fast["mean"], fast["sd"], fast["ratio"], fast["p"]))
PY
echo "compare repeats ok"
