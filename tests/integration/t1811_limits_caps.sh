#!/usr/bin/env bash
# Issue 25 item 2, after the run: each agent's and the fleet's throughput
# against the declared caps, the metered bytes and the cost (text, JSON,
# HTML, and `nfstorm report --limits` on the saved result).  The load is
# known: 2 --local agents on the null engine, each writing rate=4m (64 KiB
# blocks), 3 s.
#  - at.ini declares 4 MiB/s per client and 8 MiB/s per file system, what
#    the plan asks: the forecast before the run is exact; after it each
#    agent's judgement is what the 5% rule gives for the rate it measured
#    ("limited by the declared per-client cap" when it kept its rate;
#    a loaded machine may not); 1 EUR per GB written: cost = bytes written
#    / 10^9 (from the JSON); credits of 1 GiB, baseline 1 MiB/s: used =
#    metered - 1 MiB/s x duration; the run (3 s) is shorter than the drain
#    (1 GiB / 7 MiB/s = 146 s, "about 2 min");
#  - then the saved result against caps set from what agent 0 measured:
#    equal to it: "limited by the declared per-client cap"; half of the
#    slower agent's: "faster than the declared cap: cache?"; twice the
#    faster's: "below the declared per-client cap".
source "$(dirname "$0")/lib.sh"
cat >"$T/at.ini" <<'INI'
[limits]
name = four a client
client_throughput = 4MiB/s
fs_throughput = 8MiB/s
[credits]
initial = 1GiB
baseline_min = 1MiB/s
[prices]
currency = EUR
write_per_gb = 1
read_per_gb = 5
INI

timeout 60 "$NFSTORM" run --local 2 --limits "$T/at.ini" --name=w --ioengine=null --rw=write --bs=64k --size=1g \
  --rate=4m --runtime=3 --time_based --json "$T/r.json" --html "$T/r.html" >"$T/out" 2>"$T/err" \
  || fail "run: $(tail -n3 "$T/err")"
grep -qF 'nfstorm:   plan: 3 s, metered load 8MiB/s (reads x 1, writes x 1)' "$T/err" \
  || fail "no forecast before the run: $(cat "$T/err")"
grep -qF 'nfstorm:   warning: this 3 s run measures the burst; credits last about 2 min at this load' "$T/err" \
  || fail "no shorter-than-the-drain warning before the run: $(grep limits -A5 "$T/err")"
for a in 0 1; do
  grep -qE "^    agent $a: [0-9.]+[KM]iB/s: (limited by|below) the declared per-client cap \(4MiB/s\)$" "$T/out" \
    || fail "agent $a not judged: $(grep -A8 '^limits' "$T/out")"
done
grep -qE '^  phase w: fleet [0-9.]+[KM]iB/s \(metered [0-9.]+[KM]iB/s\): (limited by|below) the declared per-file-system cap \(8MiB/s metered\)$' \
  "$T/out" || fail "fleet not judged: $(grep -A8 '^limits' "$T/out")"
grep -qF '  warning: this 3 s run measured the burst; credits last about 2 min at this load' "$T/out" \
  || fail "no shorter-than-the-drain line after the run: $(grep -A8 '^limits' "$T/out")"
grep -qE '^  cost: 0\.0[0-9]+ EUR \(read 0\.0000, written 0\.0[0-9]+, time 0\.0000\)$' "$T/out" \
  || fail "cost line: $(grep -A8 '^limits' "$T/out")"
grep -qE '(limited by|below) the declared per-client cap' "$T/r.html" || fail "no judgement in the HTML"
grep -q '<h2 id="limits">' "$T/r.html" || fail "no limits section in the HTML"
py "$T/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ph = d["phases"][0]
wb = sum(a["ops"]["write"]["bytes"] for a in ph["agents"])
lim = d["limits"]["phases"][0]
def rule(bps, cap):
    return "above" if bps > cap * 1.05 else "at_cap" if bps >= cap * 0.95 else "below"
for a, pa in zip(lim["agents"], ph["agents"]):
    bps = pa["ops"]["write"]["bytes"] / pa["duration_s"]
    assert abs(a["bps"] - bps) <= bps * 1e-9 and a["client_throughput"] == rule(bps, 4 * 2**20), (a, bps)
fb = wb / ph["duration_s"]
assert lim["fleet"]["fs_throughput"] == rule(fb, 8 * 2**20), (lim["fleet"], fb)
c = d["cost"]
assert c["currency"] == "EUR" and c["write_bytes"] == wb and c["read_bytes"] == 0, c
assert abs(c["write"] - wb / 1e9) < 1e-12 and abs(c["total"] - wb / 1e9) < 1e-12, (c, wb)
cr = d["credits"]
assert cr["metered_bytes"] == wb, cr
assert cr["run_shorter_than_drain"] is True and abs(cr["forecast_drain_s"] - 2**30 / (7 * 2**20)) < 1e-6, cr
assert abs(cr["left_bytes"] - (2**30 - cr["used_bytes"])) < 1, cr
assert cr["used_bytes"] < wb and cr["used_bytes"] > wb - 2**20 * 4, cr   # the baseline earned back ~3 MiB
assert ph["start_unix_ms"] // 1000 - d["started"] in (0, 1), (ph["start_unix_ms"], d["started"])
PY
# re-rendered with the same declaration: the same section (the forecast
# comes from the plan the result recorded) and the same JSON objects
"$NFSTORM" report "$T/r.json" --limits "$T/at.ini" --json "$T/re.json" >"$T/re.out" 2>&1 \
  || fail "report at: $(tail -n2 "$T/re.out")"
diff <(sed -n '/^limits:/,/^verdict/p' "$T/out") <(sed -n '/^limits:/,/^verdict/p' "$T/re.out") >"$T/d" \
  || fail "the re-render's limits section differs: $(cat "$T/d")"
py "$T/r.json" "$T/re.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
for k in ("limits", "credits", "cost"):
    assert a[k] == b[k], (k, a[k], b[k])
PY
# the saved result judged against caps set from what the agents measured
py "$T/r.json" "$T" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = sys.argv[2]
bps = [a["ops"]["write"]["bytes"] / a["duration_s"] for a in d["phases"][0]["agents"]]
assert min(bps) > 0, bps
for name, cap in (("at", bps[0]), ("over", min(bps) / 2), ("under", max(bps) * 2)):
    open(f"{t}/{name}2.ini", "w").write(f"[limits]\nclient_throughput = {cap!r}/s\n")
PY
"$NFSTORM" report "$T/r.json" --limits "$T/at2.ini" >"$T/at2.out" 2>&1 || fail "report at: $(tail -n2 "$T/at2.out")"
grep -qE '^    agent 0: [0-9.]+[KM]iB/s: limited by the declared per-client cap \([0-9.]+[KM]iB/s\)$' "$T/at2.out" \
  || fail "not judged at the cap: $(grep -A6 '^limits' "$T/at2.out")"
"$NFSTORM" report "$T/r.json" --limits "$T/over2.ini" >"$T/over.out" 2>&1 || fail "report over: $(tail -n2 "$T/over.out")"
[ "$(grep -cE 'agent [01]: [0-9.]+[KM]iB/s: faster than the declared cap: cache\? \([0-9.]+[KM]iB/s\)$' "$T/over.out")" -eq 2 ] \
  || fail "not judged faster: $(grep -A6 '^limits' "$T/over.out")"
"$NFSTORM" report "$T/r.json" --limits "$T/under2.ini" --json "$T/u.json" >"$T/under.out" 2>&1 \
  || fail "report under: $(tail -n2 "$T/under.out")"
[ "$(grep -cE 'agent [01]: [0-9.]+[KM]iB/s: below the declared per-client cap \([0-9.]+[KM]iB/s\)$' "$T/under.out")" -eq 2 ] \
  || fail "not judged below: $(grep -A6 '^limits' "$T/under.out")"
py "$T/u.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [a["client_throughput"] for a in d["limits"]["phases"][0]["agents"]] == ["below", "below"], d["limits"]
assert "credits" not in d and d["cost"]["total"] == 0, d["cost"]
PY
expect_fail "report --fs-size alone" "^nfstorm: report: --fs-size needs --limits" \
  "$NFSTORM" report "$T/r.json" --fs-size 1TiB
expect_fail "report bad limits" "^nfstorm: report: $T/bad.ini:2: \[x\]: unknown section" \
  bash -c "printf '[x]\na=1\n' >'$T/bad.ini'; exec '$NFSTORM' report '$T/r.json' --limits '$T/bad.ini'"
echo PASS
