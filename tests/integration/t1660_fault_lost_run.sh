#!/usr/bin/env bash
# Every write of a run lost: the blocks a later phase reads are the
# previous run's, which "the newest generation found" took for right.
# Run a writes f.<agent> (2 agents) and s.dat (1 agent); run b's writes are
# all dropped by faultfs, so its read phase (rotate=1; shared file, no
# rotate) must find every block stale_generation naming run a (its id and
# start) while expecting run b, and exit 1.  Then verify_only: a mix of
# runs across agents fails (each agent alone sees one run), and
# verify_written_by=RUN passes only that run's blocks.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount
plan() {   # plan FILE NAME-KEYS ROTATE
  printf '[global]\ndirectory=%s\n%s\nbs=4k\nsize=64k\nverify=crc32c\nioengine=psync\n' "$FFS_M" "$2"
  printf '[w]\nrw=write\ndo_verify=0\n[r]\nstonewall\nrw=read\n%s\n' "$3"
}
plan x 'filename_format=f.$agent' rotate=1 >"$T/rot.fio"
plan x 'filename=s.dat' '' >"$T/one.fio"
run() {    # run NAME PLAN NAGENTS: exit status in RC
  timeout 60 "$NFSTORM" run "$2" --local "$3" --quiet --json "$T/$1.json" >"$T/$1.out" 2>&1
  RC=$?
  [ $RC -ne 124 ] || fail "$1: hung"
  [ -s "$T/$1.json" ] || fail "$1: no result: $(tail -n 3 "$T/$1.out")"
}
run a_rot "$T/rot.fio" 2; [ $RC -eq 0 ] || fail "a_rot: exit $RC: $(tail -n 3 "$T/a_rot.out")"
run a_one "$T/one.fio" 1; [ $RC -eq 0 ] || fail "a_one: exit $RC: $(tail -n 3 "$T/a_one.out")"
faultfs_ctl "drop"
run b_rot "$T/rot.fio" 2; [ $RC -eq 1 ] || fail "b_rot: every write lost, exit $RC (expected 1)"
run b_one "$T/one.fio" 1; [ $RC -eq 1 ] || fail "b_one: every write lost, exit $RC (expected 1)"
faultfs_ctl clear
grep -q "^run .*, run id $(py "$T/a_rot.json" <<<'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])')$" \
  "$T/a_rot.out" || fail "the text report does not print the JSON's run id"
py "$T/a_rot.json" "$T/b_rot.json" "$T/a_one.json" "$T/b_one.json" <<'PY'
import json, re, sys
for a, b, n in ((sys.argv[1], sys.argv[2], 32), (sys.argv[3], sys.argv[4], 16)):
    ra, rb = json.load(open(a)), json.load(open(b))
    ida, idb = ra["run_id"], rb["run_id"]
    assert len(ida) == 16 and ida != idb, (ida, idb)
    v = rb["phases"][1]["verify"]
    assert v["checked"] == n and v["stale_generation"] == n and v["ok"] == 0, v
    assert [(r["run"], r["blocks"]) for r in v["runs"]] == [(ida, n)], v["runs"]
    assert rb["phases"][1]["verdict"] == "failed" and rb["exit_status"] == 1
    for f in v["first"]:
        assert f["kind"] == "stale_generation" and f["found_run"] == ida and f["expected_run"] == idb, f
        assert re.fullmatch(r"20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", f["found_run_started"]), f
    # run a's own read phase: its blocks, its run
    va = ra["phases"][1]["verify"]
    assert va["ok"] == n and [(r["run"], r["blocks"]) for r in va["runs"]] == [(ida, n)], va
print("all writes lost: %d and %d blocks stale_generation, found run a, expected run b" % (32, 16))
PY
grep -Eq "stale_generation: expected writer 1 of run [0-9a-f]{16}, found writer 1 .* of run [0-9a-f]{16} \(started 20" \
  "$T/b_rot.out" || fail "the text verdict does not name the run that wrote the block: $(grep -m1 stale "$T/b_rot.out")"

# verify_only: agent 1's file rewritten by a later run; each agent sees one run, the fleet two
printf '[global]\ndirectory=%s\nfilename_format=f.$agent\nbs=4k\nsize=64k\nverify=crc32c\nioengine=psync\n[w]\nrw=write\nagents=1\n' \
  "$FFS_M" >"$T/w1.fio"
run c "$T/w1.fio" 2; [ $RC -eq 0 ] || fail "c: exit $RC: $(tail -n 3 "$T/c.out")"
vo() { printf '[global]\ndirectory=%s\nfilename_format=f.$agent\nbs=4k\nsize=64k\nverify=crc32c\nioengine=psync\n[v]\nrw=read\nverify_only=1\n%s\n' "$FFS_M" "$1"; }
vo '' >"$T/vo.fio"
run mix "$T/vo.fio" 2; [ $RC -eq 1 ] || fail "verify_only over two runs' blocks: exit $RC (expected 1)"
grep -q "verify_only: the blocks were written by 2 runs, not one" "$T/mix.out" \
  || fail "mix: no reason naming the two runs: $(grep -A3 'phase verdict' "$T/mix.out")"
IDC=$(py "$T/c.json" <<<'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])')
IDA=$(py "$T/a_rot.json" <<<'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])')
"$NFSTORM" report "$T/a_rot.json" --html "$T/a.html" >/dev/null 2>&1 || fail "report --html of run a failed"
grep -q "data-run-id=\"$IDA\"" "$T/a.html" || fail "the HTML report does not carry run a's id"
py "$T/mix.json" "$IDA" "$IDC" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["phases"][0]["verify"]
assert v["verify_only"] is True and v["ok"] == 32 and v["checked"] == 32, v
assert sorted((r["run"], r["blocks"]) for r in v["runs"]) == sorted([(sys.argv[2], 16), (sys.argv[3], 16)]), v["runs"]
PY
vo "agents=1
verify_written_by=$IDC" >"$T/wb.fio"
run wb "$T/wb.fio" 2; [ $RC -eq 0 ] || fail "verify_written_by=run c over run c's file: exit $RC: $(grep -A2 'phase verdict' "$T/wb.out")"
vo "agents=1
verify_written_by=$IDA" >"$T/wb2.fio"
run wb2 "$T/wb2.fio" 2; [ $RC -eq 1 ] || fail "verify_written_by=run a over run c's file: exit $RC (expected 1)"
py "$T/wb2.json" "$IDA" "$IDC" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["phases"][0]["verify"]
assert v["stale_generation"] == 16 and v["ok"] == 0, v
assert all(f["expected_run"] == sys.argv[2] and f["found_run"] == sys.argv[3] for f in v["first"]), v["first"]
PY
printf '[global]\ndirectory=%s\nfilename=f.0\nbs=4k\nsize=64k\nverify=crc32c\n[v]\nrw=read\nverify_only=1\nverify_written_by=12zz\n' "$FFS_M" >"$T/bad.fio"
"$NFSTORM" run "$T/bad.fio" --dry-run >"$T/bad.out" 2>&1 && fail "verify_written_by=12zz accepted"
grep -q "verify_written_by=12zz: want a run id, 16 hex digits" "$T/bad.out" || fail "bad run id: $(cat "$T/bad.out")"
echo "lost run: stale_generation naming the old run; verify_only mix fails; verify_written_by pins the run"
