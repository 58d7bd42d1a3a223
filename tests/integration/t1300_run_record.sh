#!/usr/bin/env bash
# t1300: a result knows what it measured (issue 13).  A plan file using
# include and ${VAR}, run on 2 local agents with --target and --label: the
# JSON records the plan as read (expanded), the command line, the versions,
# start < end, the target, interrupted false, each agent's kernel (uname -r),
# CPU count (nproc), MemTotal, and the mount holding the test directory
# (findmnt); the run's header block is the same in `nfstorm report` of the
# JSON and of the journal.  A run stopped with SIGINT records interrupted
# true, in the JSON and in the journal.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/common.fio" <<'FIO'
[global]
bs=4k
size=4m
FIO
cat >"$T/plan.fio" <<FIO
; the plan: an include and a variable from the environment
include common.fio
[rec]
rw=\${T1300_RW}
filename=$D/f.\${agent}
runtime=1
time_based
FIO
T1300_RW=randread timeout 60 "$NFSTORM" run "$T/plan.fio" --local 2 --quiet --target fs-x --label L \
  --json "$T/r.json" >"$T/run.txt" 2>"$T/err" || fail "run: $(tail -n 3 "$T/err")"
read -r src fstype target < <(findmnt -n -o SOURCE,FSTYPE,TARGET --target "$D")
py "$T/r.json" "$T/plan.fio" "$(uname -r)" "$(nproc)" "$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024 ))" \
   "$src" "$fstype" "$target" "$D" "$NFSTORM" "$(sed -n 's/^nfstorm \([^ ]*\) (protocol \([0-9]*\))$/\1 \2/p' <("$NFSTORM" --version))" <<'PY'
import json, sys
path, plan, kernel, ncpus, mem, src, fstype, mnt, d, prog, ver = sys.argv[1:]
r = json.load(open(path))
rec = r["record"]
want_plan = "[global]\nbs=4k\nsize=4m\n\n[rec]\nrw=randread\nfilename=%s/f.${agent}\nruntime=1\ntime_based\n" % d
assert rec["plan"] == want_plan, repr(rec["plan"])
assert rec["argv"] == [prog, "run", plan, "--local", "2", "--quiet", "--target", "fs-x", "--label", "L",
                       "--json", path], rec["argv"]
assert rec["target"] == "fs-x" and r["label"] == "L", (rec["target"], r["label"])
v, proto = ver.split()
assert rec["nfstorm_version"] == v and rec["protocol_version"] == int(proto), rec
assert rec["interrupted"] is False
assert 0 < rec["start_unix"] < rec["end_unix"], (rec["start_unix"], rec["end_unix"])
assert rec["end_unix"] - rec["start_unix"] < 60
assert rec["start"].endswith("Z") and rec["start"][:4] == rec["end"][:4] and "T" in rec["start"], rec["start"]
assert len(r["agents"]) == 2
for a in r["agents"]:
    s = a["system"]
    assert s["kernel"] == kernel, (s["kernel"], kernel)
    assert a["ncpus"] == int(ncpus), a["ncpus"]
    assert s["mem_bytes"] == int(mem), (s["mem_bytes"], mem)
for a in r["phases"][0]["agents"]:
    st = a["storage"]
    assert len(st) == 1, st
    st = st[0]
    assert st["kind"] == "mount" and st["job"] == "rec", st
    assert (st["source"], st["fstype"], st["mount_point"]) == (src, fstype, mnt), (st, src, fstype, mnt)
PY
# the header block (after the "run" line, up to the first blank line) from the run, the JSON, the journal
header() { sed -n '2,/^$/p' "$1" | sed '/^$/d'; }
header "$T/run.txt" >"$T/h.run"
[ "$(wc -l <"$T/h.run")" -eq 3 ] || fail "header is not 3 lines: $(cat "$T/h.run")"
grep -q "^target fs-x, nfstorm .* (protocol [0-9]*), 20..-..-..T..:..:..\.[0-9]*Z to .*Z ([0-9.]* s)$" "$T/h.run" \
  || fail "no target line: $(head -n1 "$T/h.run")"
grep -q "^agents 0-1 ([^)]*): kernel $(uname -r), $(nproc) CPUs (" "$T/h.run" || fail "no agents line: $(cat "$T/h.run")"
grep -q "^storage: $src on $target ($fstype); agents 0-1, phase rec$" "$T/h.run" || fail "no storage line: $(cat "$T/h.run")"
for f in r.json r.json.journal; do
  timeout 20 "$NFSTORM" report "$T/$f" >"$T/rep.txt" 2>&1 || fail "report $f: $(tail -n1 "$T/rep.txt")"
  header "$T/rep.txt" >"$T/h.rep"
  cmp -s "$T/h.run" "$T/h.rep" || fail "header from $f differs: $(diff "$T/h.run" "$T/h.rep" | head -3)"
  cmp -s "$T/run.txt" "$T/rep.txt" || fail "report from $f differs from the run's: $(diff "$T/run.txt" "$T/rep.txt" | head -3)"
done
# a command-line plan records its job options; SIGINT records interrupted
start_agent "$D"
"$NFSTORM" run --agents "$AGENT_ADDR" --json "$T/i.json" --target fs-i --name=w --rw=randwrite --bs=4k \
  --size=4m --filename="$D/g" --runtime=20 --time_based >"$T/iout" 2>"$T/ierr" &
c=$!
for _ in $(seq 200); do grep -q "started on" "$T/ierr" && break; sleep 0.05; done
wait_intervals "$T/i.json.journal" 1 || fail "no interval: $(tail -n1 "$T/ierr")"
kill -INT $c; wait $c; rc=$?
[ $rc -eq 130 ] || fail "SIGINT: exit $rc, want 130: $(tail -n1 "$T/ierr")"
timeout 20 "$NFSTORM" report "$T/i.json.journal" --json "$T/ij.json" >/dev/null 2>&1
for f in i.json ij.json; do
py "$T/$f" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))["record"]
assert rec["interrupted"] is True, rec["interrupted"]
assert rec["target"] == "fs-i"
assert rec["plan"] == "name=w\nrw=randwrite\nbs=4k\nsize=4m\nfilename=%s\nruntime=20\ntime_based\n" % rec["argv"][-3].split("=", 1)[1], repr(rec["plan"])
assert rec["start_unix"] < rec["end_unix"]
PY
done
grep -q "^target fs-i, .*, interrupted$" "$T/iout" || fail "interrupted run's header: $(sed -n 2p "$T/iout")"
echo "t1300: PASS"
