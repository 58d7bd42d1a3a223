#!/usr/bin/env bash
# ssh spawn against a real sshd (tests/sshd.sh, on loopback): `run --hosts
# FILE --spawn ssh` starts an agent over ssh on each of three hosts (ssh
# config aliases h1 h2 h3 of the one sshd, labels zb za zc), the agents
# dial back (the address taken from $SSH_CONNECTION on the remote side),
# the run sorts them by label (za.0 zb.1 zc.2, 16 writes each) and, when
# it ends, no agent and no ssh client it started is left.  A second run
# names the address (--spawn-address) and a remote secret path of its own.
# Nor does any outlive a coordinator interrupted (SIGINT) or killed (-9).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
. "$ROOT/tests/sshd.sh"
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || skip "openssh-server is not installed (scripts/install-deps.sh)"
trap 'sshd_stop; cleanup' EXIT
sshd_start || fail "sshd did not start"

# the agents' directory is this test's marker: every agent it starts has it on its command line
D=$T/spawned-agents-$$; mkdir -p "$D"
cat >"$T/hosts" <<HOSTS
# three "hosts", one sshd
h1 label=zb
h2 label=za
h3 label=zc
HOSTS
cat >"$T/p.fio" <<FIO
[global]
rw=write
bs=4k
size=64k
[ja]
agents=@za
filename=$D/za.\${agent}
[jb]
agents=@zb
filename=$D/zb.\${agent}
[jc]
agents=@zc
filename=$D/zc.\${agent}
FIO

left_behind() {   # agents or ssh clients of this test still running, after up to 5 s
  local p
  for _ in $(seq 50); do
    p=$(pgrep -f -- "$D" ; pgrep -f -- "$SSH_CONFIG")
    [ -z "$p" ] && return 1
    sleep 0.1
  done
  ps -o pid,args -p $(echo $p | tr ' ' ',') >&2
  return 0
}

check_run() {   # check_run N OUT JSON
  local n=$1 out=$2 json=$3
  [ "$(cd "$D" && ls z* | tr '\n' ' ')" = "za.0 zb.1 zc.2 " ] ||
    fail "run $n: files $(cd "$D" && ls | tr '\n' ' ') (want za.0 zb.1 zc.2)"
  for f in za.0 zb.1 zc.2; do
    [ "$(stat -c %s "$D/$f")" = 65536 ] || fail "run $n: $f is $(stat -c %s "$D/$f") bytes, not 65536"
  done
  [ "$(grep -c '^nfstorm: agent joined: ' "$out")" = 3 ] || fail "run $n: not 3 'agent joined' lines: $(cat "$out")"
  py "$json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["agents"]) == 3, r["agents"]
w = [a["ops"]["write"]["ops"] for a in r["phases"][0]["agents"]]
assert w == [16, 16, 16], w
PY
  left_behind && fail "run $n: agents or ssh clients outlived the run"
  return 0
}

t0=$(date +%s%N)
timeout 60 "$NFSTORM" run "$T/p.fio" --hosts "$T/hosts" --spawn ssh --ssh-config "$SSH_CONFIG" \
  --agent-path "$AGENT" --listen 127.0.0.1:$CPORT --secret-file "$SECRET" --expect-timeout 20s \
  --json "$T/r1.json" >"$T/o1" 2>&1 || fail "run 1: exit $?: $(tail -n 5 "$T/o1")"
t1=$(date +%s%N)
grep -q "^nfstorm: ssh: starting 3 agents, dialling back to port $CPORT of the address their ssh connection came from" "$T/o1" ||
  fail "run 1: no 'ssh: starting 3 agents' line: $(head -n 3 "$T/o1")"
check_run 1 "$T/o1" "$T/r1.json"
[ "$(grep -c 'Accepted publickey for root' "$SSHD_LOG")" = 3 ] || fail "sshd did not accept 3 sessions: $(grep -c Accepted "$SSHD_LOG")"

# --spawn-address, --remote-secret-file, --ssh-option (passed as -o; a wrong
# option would make ssh refuse to start)
rm -f "$D"/z*
cp "$SECRET" "$T/remote-secret"; chmod 600 "$T/remote-secret"
timeout 60 "$NFSTORM" run "$T/p.fio" --hosts "$T/hosts" --spawn ssh --ssh-config "$SSH_CONFIG" \
  --ssh-option ConnectTimeout=5 --agent-path "$AGENT" --spawn-address 127.0.0.1 \
  --remote-secret-file "$T/remote-secret" --remote-allow "$D" --listen 127.0.0.1:$CPORT \
  --secret-file "$SECRET" --json "$T/r2.json" >"$T/o2" 2>&1 || fail "run 2: exit $?: $(tail -n 5 "$T/o2")"
grep -q "^nfstorm: ssh: starting 3 agents, dialling back to 127.0.0.1:$CPORT$" "$T/o2" || fail "run 2: no 'dialling back to 127.0.0.1' line"
check_run 2 "$T/o2" "$T/r2.json"
# the coordinator interrupted (SIGINT: partial results, exit 130) and
# killed (-9: its ssh children have it as their parent-death signal): in
# both cases no agent or ssh client outlives it
cat >"$T/long.fio" <<FIO
[long]
ioengine=null
rw=read
bs=4k
size=64k
filename=$D/n.\${agent}
time_based=1
runtime=60s
rate_iops=10
FIO
for sig in INT KILL; do
  "$NFSTORM" run "$T/long.fio" --hosts "$T/hosts" --spawn ssh --ssh-config "$SSH_CONFIG" --agent-path "$AGENT" \
    --listen 127.0.0.1:$CPORT --secret-file "$SECRET" >"$T/o.$sig" 2>&1 &
  cpid=$!
  for _ in $(seq 100); do grep -q '\[3/3\]' "$T/o.$sig" && break; sleep 0.1; done
  grep -q '\[3/3\]' "$T/o.$sig" || fail "SIG$sig: the agents did not join: $(cat "$T/o.$sig")"
  sleep 1
  kill -$sig $cpid
  { wait $cpid; } 2>/dev/null; rc=$?
  [ $sig = KILL ] || [ $rc = 130 ] || fail "SIGINT: exit status $rc, not 130: $(tail -n 3 "$T/o.$sig")"
  left_behind && fail "SIG$sig of the coordinator: agents or ssh clients outlived it"
done
echo "ok: 3 agents over ssh twice (sorted za.0 zb.1 zc.2, 16 writes each), none left, also after SIGINT and kill -9 of the coordinator; run 1 took $(( (t1 - t0) / 1000000 )) ms"
