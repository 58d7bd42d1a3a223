#!/usr/bin/env bash
# `nfstorm clean PLAN` removes the files the plan lays out, through the
# agents and within their --allow confinement: only regular files the plan
# names (a symlink in a plan file's place, and its target, are left), and
# says per agent how many files and bytes went.  `run --cleanup` does it
# after the run.  Before a run, the total it will write is printed.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D/inner"
start_agent "$D"; A0=$AGENT_ADDR
start_agent "$D"; A1=$AGENT_ADDR
cat >"$T/p.fio" <<FIO
[global]
directory=$D
bs=4k
[r]
rw=randread
size=4m
nrfiles=2
numjobs=2
[w]
stonewall
rw=write
filename=$D/shared
size=1m
[l]
stonewall
rw=read
filename=$D/link
size=64k
FIO
echo keep >"$D/keep.txt"
head -c 65536 /dev/zero >"$D/inner/target"
ln -s inner/target "$D/link"
timeout 60 "$NFSTORM" run "$T/p.fio" --agents "$A0,$A1" --quiet >"$T/o" 2>&1 || fail "run failed: $(tail -n2 "$T/o")"
n=$(find "$D" -maxdepth 1 -type f -name 'r.*' | wc -l)
[ "$n" -eq 8 ] || fail "want 8 laid-out files (2 agents x 2 threads x 2 files), found $n"

timeout 30 "$NFSTORM" clean "$T/p.fio" --agents "$A0,$A1" >"$T/c" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "clean: exit $rc: $(cat "$T/c")"
# each agent: its 4 files of 2MiB; the shared 1MiB file goes to whichever comes first
for i in 0 1; do
  a=$([ $i -eq 0 ] && echo "$A0" || echo "$A1")
  grep -Eq "^clean: agent $i \($a\): removed (4 files, 8MiB|5 files, 9MiB) \(.*/link: not a regular file, left alone\)$" "$T/c" \
    || fail "agent $i line: $(cat "$T/c")"
done
grep -q "^clean: removed 9 files, 17MiB in all$" "$T/c" || fail "total line: $(cat "$T/c")"
left=$(cd "$D" && find . -mindepth 1 | sort | tr '\n' ' ')
[ "$left" = "./inner ./inner/target ./keep.txt ./link " ] || fail "left in the directory: $left"

# the plan must stay beneath --allow, as for a run
expect_fail "clean outside --allow" "outside the allowed directories" \
  "$NFSTORM" clean --agents "$A0" --name=x --rw=read --size=1m --directory=/etc
expect_fail "clean with run's output options" "clean: only plan and agent options apply" \
  "$NFSTORM" clean --agents "$A0" --json "$T/x.json" --name=x --rw=read --size=1m

# an agent busy with another coordinator's run: clean waits for it (up to
# the connect/agent timeout), then cleans; if it stays busy, says so
"$NFSTORM" run --agents "$A0" --name=b --rw=randwrite --bs=4k --size=2m --directory="$D" \
  --runtime=6 --time_based >"$T/o" 2>&1 &
c=$!; PIDS+=("$c")
wait_grep "$T/o" "phase 1/1 b: started on" || fail "the run holding the agent did not start: $(tail -n2 "$T/o")"
timeout 30 "$NFSTORM" clean --agents "$A0" --connect-timeout 2s --agent-timeout 2s --name=b --rw=randwrite \
  --size=2m --directory="$D" >"$T/c" 2>&1 && fail "clean of a busy agent: exit 0: $(cat "$T/c")"
grep -q "^nfstorm: clean: agent 0 ($A0): still busy after 2.0 s: agent .*busy: serving coordinator" "$T/c" \
  || fail "busy agent: $(cat "$T/c")"
# (the default wait, 10 s, outlasts the ~4 s left of the run: it was 1.4 s
# while the coordinator narrowed the timeout to 32 bits before dividing)
timeout 30 "$NFSTORM" clean --agents "$A0" --name=b --rw=randwrite --size=2m --directory="$D" >"$T/c" 2>&1 \
  || fail "clean waiting for a busy agent: $(cat "$T/c")"
grep -q "^clean: agent 0 ($A0): removed 1 file, 2MiB$" "$T/c" || fail "after waiting: $(cat "$T/c")"
wait $c || fail "the run that kept the agent busy failed"

# run --cleanup, --local with its own secret: the estimate first, nothing left after
E=$T/e; mkdir -p "$E"
timeout 60 "$NFSTORM" run --local 2 --cleanup --name=w --rw=write --bs=64k --size=2m --numjobs=3 \
  --directory="$E" >"$T/o" 2>"$T/e.err" || fail "run --cleanup failed: $(cat "$T/e.err")"
grep -q "^nfstorm: about to write 12MiB across 2 agents (layout of missing files up to 0B, write phases 12MiB)$" "$T/e.err" \
  || fail "no estimate line: $(cat "$T/e.err")"
grep -q "^clean: removed 6 files, 12MiB in all$" "$T/e.err" || fail "cleanup summary: $(cat "$T/e.err")"
[ -z "$(ls -A "$E")" ] || fail "left after --cleanup: $(ls -A "$E")"
echo "clean: 9 files/17MiB on 2 agents, symlink and others left; run --cleanup: 6 files, 12MiB"
