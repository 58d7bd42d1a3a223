#!/usr/bin/env bash
# --dry-run with a hosts file carrying labels: agents=@label picks the
# agents, the others idle; ${host}/${agent} are expanded in the paths
# printed; nothing is connected to (the hosts do not exist) and no file is
# created.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/hosts" <<H
# host[:port] label=NAME
client-a:7001 label=fast
client-b      label=slow
client-c:7003 label=fast label=east
H
cat >"$T/p.fio" <<F
[global]
directory=$D/\${host}
size=8m
[writers]
agents=@fast
rw=write
bs=1m
numjobs=2
nrfiles=5
[reader]
stonewall
agents=1
rw=randread
F
timeout 10 "$NFSTORM" run --dry-run --hosts "$T/hosts" "$T/p.fio" >"$T/out" 2>"$T/err" || fail "dry-run failed: $(cat "$T/err")"
cat "$T/out"
grep -qx "phase 1/2 'writers'" "$T/out" || fail "no phase line for writers"
grep -qx "  agent 0 (client-a label=fast): 1 job, 2 threads" "$T/out" || fail "agent 0 should run writers"
grep -qx "  agent 1 (client-b label=slow): idle" "$T/out" || fail "agent 1 should idle in phase 1"
grep -qx "  agent 2 (client-c label=fast,east): 1 job, 2 threads" "$T/out" || fail "agent 2 should run writers"
grep -q "agents=0,2" "$T/out" || fail "label @fast not resolved to 0,2"
grep -q "ops/thread=8 " "$T/out" || fail "op count (8m / 1m) not shown"
grep -q "thread 1 (job 1): $D/client-c/writers.2.1.0 $D/client-c/writers.2.1.1 $D/client-c/writers.2.1.2 ... 2 more" "$T/out" \
  || fail "paths of agent 2 thread 1 not expanded as expected"
grep -q "thread 0 (job 0): $D/client-b/reader.1.0.0" "$T/out" || fail "reader path on agent 1"
[ "$(grep -c ': idle$' "$T/out")" -eq 3 ] || fail "want 3 idle agent-phases (1 in phase 1, 2 in phase 2)"
[ -z "$(ls -A "$D")" ] || fail "dry-run created files: $(ls "$D")"

# an unknown label is an error naming it, exit 2
printf '[j]\nsize=1m\nagents=@gpu\n' >"$T/bad.fio"
timeout 10 "$NFSTORM" run --dry-run --hosts "$T/hosts" "$T/bad.fio" >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unknown label: exit $rc, want 2"
grep -q "job 'j': agents=@gpu: no agent has the label 'gpu'" "$T/out" || fail "unknown label message: $(cat "$T/out")"
# a bad hosts-file setting names file and line
printf 'client-a colour=red\n' >"$T/hosts2"
timeout 10 "$NFSTORM" run --dry-run --hosts "$T/hosts2" "$T/p.fio" >"$T/out" 2>&1
grep -q "hosts2:1: unknown setting 'colour=red' (want label=NAME)" "$T/out" || fail "hosts setting message: $(cat "$T/out")"
# hosts files are read by whole lines: a long line is refused with file:line (it once became several hosts),
# spaces before label= keep it a label (a 1024-byte cut made 'label=big' a host), a NUL byte is refused,
# and a label the agent would refuse is refused here, before anything is started
hosts_err() {   # hosts_err NAME REGEX: --dry-run with $T/hosts3 exits 2 with REGEX in one line
  timeout 10 "$NFSTORM" run --dry-run --hosts "$T/hosts3" "$T/p.fio" >"$T/out" 2>&1; rc=$?
  [ $rc -eq 2 ] || fail "$1: exit $rc, want 2: $(head -c 300 "$T/out")"
  grep -Eq -- "$2" "$T/out" || fail "$1: want /$2/: $(head -c 300 "$T/out")"
  [ "$(grep -c . "$T/out")" -eq 1 ] || fail "$1: not one line: $(head -c 300 "$T/out")"
}
{ echo client-a; printf 'client-b%5000s\n' ''; } >"$T/hosts3"
hosts_err "long line" "hosts3:2: a line longer than 4096 bytes"
printf 'client-a\nclient-b\0client-c\n' >"$T/hosts3"
hosts_err "NUL" "hosts3:2: a NUL byte in the line"
printf 'client-a label=fa$t\n' >"$T/hosts3"
hosts_err "bad label" "hosts3:1: labels 'fa\\\$t': a label may hold only letters, digits"
printf 'client-a label=%070d\n' 0 >"$T/hosts3"
hosts_err "long label" "hosts3:1: .*a label is longer than 63 bytes"
printf 'client-a:99999\n' >"$T/hosts3"
hosts_err "port out of range" "hosts3:1: 'client-a:99999': the port must be 1 to 65535"
printf 'client-a:0\n' >"$T/hosts3"
hosts_err "port 0" "hosts3:1: 'client-a:0': the port must be 1 to 65535"
for a in 127.0.0.1:99999 127.0.0.1:0 127.0.0.1:-1 127.0.0.1:7x; do
  timeout 10 "$NFSTORM" run --agents "$a" --name=x --size=1m >"$T/out" 2>&1; rc=$?
  [ $rc -eq 2 ] && grep -q "^nfstorm: --agents: '$a': the port must be 1 to 65535$" "$T/out" ||
    fail "--agents $a: exit $rc: $(cat "$T/out")"
done
printf 'client-a%3000slabel=big\n' '' >"$T/hosts3"
printf '[j]\nsize=1m\nagents=@big\n' >"$T/big.fio"
timeout 10 "$NFSTORM" run --dry-run --hosts "$T/hosts3" "$T/big.fio" >"$T/out" 2>&1
grep -q "agent 0 (client-a label=big)" "$T/out" || fail "spaces before label=: $(head -c 300 "$T/out")"
grep -q "label=big:" "$T/out" && fail "'label=big' became a host: $(head -c 300 "$T/out")"
echo "dry-run assigns agents by label and does no I/O; hosts files read by whole lines, NUL and bad labels refused"
