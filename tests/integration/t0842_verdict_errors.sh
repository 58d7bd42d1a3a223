#!/usr/bin/env bash
# Failed ops: a phase with failed ops fails (exit 1) with a reason naming the
# agent and the counts, unless the plan's error_threshold tolerates them
# (then it is ok and the reason still says so); failed ops never count as
# throughput (IOPS from successful ops only).  Each file is unlinked twice,
# so exactly half of the unlinks fail (ENOENT) on a real file system.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
run() {  # run NAME [extra keys...]: the exit status
  local name=$1; shift
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/$name.json" --name=m --rw=metadata \
    --md_ops=create,unlink,unlink --nrfiles=20 --size=1m --directory="$D/$name" "$@" >"$T/$name.out" 2>&1
}
mkdir -p "$D/strict" "$D/pct" "$D/n19" "$D/n20"
run strict; rc=$?
[ $rc -eq 1 ] || fail "20 of 40 unlinks failed: exit $rc, want 1: $(tail -n1 "$T/strict.out")"
grep -q "^nfstorm: run failed: phase m: agent 0 ($AGENT_ADDR): 20 of 40 unlink ops failed (ENOENT (No such file or directory))" "$T/strict.out" ||
  fail "stderr does not name agent and counts: $(tail -n1 "$T/strict.out")"
run pct --error_threshold=50%; rc=$?
[ $rc -eq 0 ] || fail "error_threshold=50%: exit $rc, want 0: $(tail -n1 "$T/pct.out")"
run n19 --error_threshold=19; rc=$?
[ $rc -eq 1 ] || fail "error_threshold=19 with 20 failed: exit $rc, want 1"
run n20 --error_threshold=20; rc=$?
[ $rc -eq 0 ] || fail "error_threshold=20 with 20 failed: exit $rc, want 0: $(tail -n1 "$T/n20.out")"
py "$T" "$AGENT_ADDR" <<'PY'
import json, sys
d, addr = sys.argv[1], sys.argv[2]
def ph(n): return json.load(open("%s/%s.json" % (d, n)))["phases"][0]
s = ph("strict")
assert s["verdict"] == "failed", s["verdict"]
# the reason names the failed ops' cause (each file's second unlink: ENOENT)
assert s["reasons"] == ["agent 0 (%s): 20 of 40 unlink ops failed (ENOENT (No such file or directory))" % addr], s["reasons"]
c = s["agents"][0]["errors"]["unlink"]
assert c["failed"] == 20 and [(x["name"], x["count"]) for x in c["causes"]] == [("ENOENT", 20)], c
u = s["ops"]["unlink"]
assert (u["ops"], u["errors"]) == (40, 20), u
# throughput from successful ops only
assert abs(u["iops"] - 20 / s["duration_s"]) < 1e-6 * u["iops"], (u["iops"], s["duration_s"])
assert abs(s["agents"][0]["ops"]["unlink"]["iops"] - 20 / s["agents"][0]["duration_s"]) < 1e-3
p = ph("pct")
assert p["verdict"] == "ok", p["verdict"]
assert p["reasons"] == ["agent 0 (%s): 20 of 40 unlink ops failed (ENOENT (No such file or directory)), within error_threshold=50%%" % addr], p["reasons"]
assert p["error_threshold_pct"] == 50
assert ph("n19")["verdict"] == "failed" and ph("n20")["verdict"] == "ok"
assert ph("n20")["reasons"] == ["agent 0 (%s): 20 of 40 unlink ops failed (ENOENT (No such file or directory)), within error_threshold=20" % addr]
PY
# bad values are refused at plan time, naming the key
expect_fail "error_threshold=abc" "error_threshold: bad value 'abc'" "$NFSTORM" run --agents "$AGENT_ADDR" \
  --name=x --size=1m --error_threshold=abc
expect_fail "error_threshold=101%" "error_threshold: .*0% to 100%" "$NFSTORM" run --agents "$AGENT_ADDR" \
  --name=x --size=1m --error_threshold=101%
echo "ok: failed ops fail the phase past error_threshold, and are not throughput"
