#!/usr/bin/env bash
# A repeat set of a searched sweep whose repetitions took different paths
# (on real storage each repetition's measurements steer its own search):
# the set loads, reports and compares; at a phase where a repetition tried
# another value than the first, its figures are left out of that phase's
# statistics with the reason, never averaged with another point's; the
# points both tried count both.  The two paths are the model server's
# (t1789): p50 <= 6.5 ms visits 1 2 4 8 6 5, p50 <= 10.5 ms 1 2 4 8 16 12
# 10 9; the set is the first run's --repeat 2 file with its second
# repetition replaced by the other run's result (a set embeds each run as
# --json writes it).
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"; A0=$AGENT_ADDR
M=(--name=q --ioengine=null --rw=randread --bs=4k --size=64m --null_capacity_iops=1k --null_latency=1ms
   --sweep=iodepth --sweep_start=1 --sweep_max=16 --sweep_point_time=300ms --sweep_valid=cv:100)
timeout 90 "$NFSTORM" run --agents "$A0" --quiet --interval 100ms --repeat 2 --label tight \
  --json "$T/tight.json" "${M[@]}" --sweep_slo="p50<=6500us" >"$T/tight.out" 2>&1 || fail "run tight: $(tail -n3 "$T/tight.out")"
timeout 90 "$NFSTORM" run --agents "$A0" --quiet --interval 100ms --label loose \
  --json "$T/loose.json" "${M[@]}" --sweep_slo="p50<=10500us" >"$T/loose.out" 2>&1 || fail "run loose: $(tail -n3 "$T/loose.out")"
py "$T/tight.json" "$T/loose.json" "$T/mixed.json" "$T/diff" <<'PY'
import json, sys
s, other = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
s["repetitions"][1] = other
names = lambda r: [p["name"] for p in r["phases"]]
a, b = names(s["repetitions"][0]), names(other)
# both searches start 1 2 4 8; past 8 (9 ms) the tight SLO fails and the
# loose one passes, so the next point differs (6 against 16 when idle)
assert a[:4] == b[:4] == ["q@1", "q@2", "q@4", "q@8"] and a[4] != b[4], (a, b)
json.dump(s, open(sys.argv[3], "w"))
open(sys.argv[4], "w").write("".join("%d %s %s\n" % (i, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y))
PY
read -r _ first other < "$T/diff"
timeout 20 "$NFSTORM" report "$T/mixed.json" >"$T/r.txt" 2>&1; rc=$?
[ $rc = 0 ] || fail "report of the mixed set: exit $rc: $(tail -n3 "$T/r.txt")"
grep -q "repetition 2 left out of the statistics ([a-z]*: its sweep searched another point here: $other, not $first)" "$T/r.txt" ||
  fail "no left-out line for the other point $other: $(cat "$T/r.txt")"
timeout 20 "$NFSTORM" report "$T/mixed.json" --json "$T/r.json" >/dev/null 2>&1 || fail "report --json of the mixed set"
py "$T/r.json" "$T/diff" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["summary"]["phases"]
diff = {int(l.split()[0]): l.split()[1:] for l in open(sys.argv[2])}
# the points both repetitions tried count both; another point only the first
for i, p in enumerate(ph[:4]):
    assert p["left_out"] == [] and p["ops"]["read"]["iops"]["n"] == 2, p
for i, (x, y) in diff.items():
    lo = [l for l in ph[i]["left_out"] if l["repetition"] == 2]
    assert ph[i]["name"] == x and len(lo) == 1, ph[i]
    assert lo[0]["reason"] == "its sweep searched another point here: %s, not %s" % (y, x), lo
    if "read" in ph[i]["ops"]:
        assert ph[i]["ops"]["read"]["iops"]["n"] <= 1, ph[i]["ops"]["read"]["iops"]
print("%d phases searched other points; each left out with its reason, never averaged" % len(diff))
PY
timeout 20 "$NFSTORM" compare "$T/mixed.json" "$T/tight.json" >"$T/c.txt" 2>&1 || fail "compare with the mixed set: $(tail -n3 "$T/c.txt")"
grep -q "repetition 2 left out ([a-z]*: its sweep searched another point here: $other, not $first)" "$T/c.txt" ||
  fail "compare: no left-out line for the other point: $(cat "$T/c.txt")"
# a set whose phases differ outside a sweep is still refused
py "$T/tight.json" "$T/bad.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["repetitions"][1]["phases"][0]["name"] = "other"
json.dump(s, open(sys.argv[2], "w"))
PY
timeout 20 "$NFSTORM" report "$T/bad.json" >"$T/bad.out" 2>&1 && fail "a set whose first phase differs was reported"
grep -q "repetitions\[1\].phases\[0\]: 'other' (randread, bs 4096) is not repetitions\[0\]'s 'q@1'" "$T/bad.out" ||
  fail "bad set: $(cat "$T/bad.out")"
echo "ok: a sweep set whose repetitions searched different points reports and compares, the other point left out with its reason"
