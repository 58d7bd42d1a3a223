#!/usr/bin/env bash
# ssh spawn when it cannot work: each error names the host and what ssh
# said, comes at once (not at --expect-timeout), exits 1, and leaves no
# agent or ssh client running, also the good host's; bad usage exits 2
# with one line.
. "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
. "$(dirname "$0")/dialin_lib.sh"
. "$ROOT/tests/sshd.sh"
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || skip "openssh-server is not installed (scripts/install-deps.sh)"
trap 'sshd_stop; cleanup' EXIT
sshd_start || fail "sshd did not start"
D=$T/spawn-errors-$$; mkdir -p "$D"
# hbad: a key sshd does not know; hdown: a port nothing listens on
ssh-keygen -q -t ed25519 -N '' -f "$T/wrong_key" </dev/null
DOWN=$(free_port)
cp "$SSH_CONFIG" "$T/ssh_config"
cat >>"$T/ssh_config" <<CFG
Host hbad
  HostName 127.0.0.1
  Port $SSHD_PORT
  User root
  IdentityFile $T/wrong_key
  IdentitiesOnly yes
  UserKnownHostsFile $SSHD_DIR/known_hosts
  HostKeyAlias nfstorm-test-sshd
  BatchMode yes
Host hdown
  HostName 127.0.0.1
  Port $DOWN
  BatchMode yes
CFG
printf 'h1\nhbad\n' >"$T/hosts.bad"
printf 'hdown\n' >"$T/hosts.down"
printf 'h1\n' >"$T/hosts.one"
P="--name=w --rw=write --bs=4k --size=16k --filename=$D/f"

# want NAME STATUS REGEX CMD...: CMD exits with STATUS, its output matches
# REGEX and is at most 3 lines (the notices of what it starts aside)
want() {
  local name=$1 st=$2 re=$3 rc; shift 3
  timeout 30 "$@" >"$T/out" 2>&1; rc=$?
  [ $rc = "$st" ] || fail "$name: exit status $rc, not $st: $(head -c 400 "$T/out")"
  grep -Eq -- "$re" "$T/out" || fail "$name: output does not match /$re/: $(head -c 400 "$T/out")"
  [ "$(grep -Ev '^nfstorm: (about to write|ssh: starting|listening on|agent joined)' "$T/out" | grep -c .)" -le 3 ] ||
    fail "$name: error is not short: $(head -c 400 "$T/out")"
}

spawn() {   # spawn NAME REGEX HOSTS [more args]: fails with status 1 within 15 s, nothing left
  local name=$1 re=$2 hosts=$3 t0 ms; shift 3
  t0=$(date +%s%N)
  want "$name" 1 "$re" "$NFSTORM" run $P --hosts "$hosts" --spawn ssh --ssh-config "$T/ssh_config" \
    --agent-path "$AGENT" --listen 127.0.0.1:$CPORT --secret-file "$SECRET" --expect-timeout 25s "$@"
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  [ $ms -lt "$(bound_ms 15000)" ] || fail "$name: took $ms ms (the ssh failure should end the wait at once; goal 15 s + 2 baselines of ${BASE_MS} ms)"
  for _ in $(seq 50); do
    [ -z "$(pgrep -f -- "$D"; pgrep -f -- "$T/ssh_config")" ] && return 0
    sleep 0.1
  done
  fail "$name: agents or ssh clients left running: $(pgrep -af -- "$D")"
}

spawn "auth refused" "host hbad: ssh exited with status 255: .*Permission denied \(publickey" "$T/hosts.bad"
spawn "unreachable" "host hdown: ssh exited with status 255: .*port $DOWN: Connection refused" "$T/hosts.down"
spawn "no agent binary" "host h1: ssh exited with status 127: .*/no/such/nfstorm-agent.*(not found|No such file)" "$T/hosts.one" \
  --agent-path /no/such/nfstorm-agent
# the remote agent refuses its arguments (a secret file it cannot read): its own error line
spawn "bad remote secret" "host h1: ssh exited with status 2: .*$T/nope" "$T/hosts.one" --remote-secret-file "$T/nope"
# the same with ssh's default log level, which adds "Connection to ... closed." after the agent's line:
# the agent's own error is still the one named (tests/sshd.sh's LogLevel ERROR hid this)
grep -v 'LogLevel' "$T/ssh_config" >"$T/ssh_config.default"
want "bad remote secret, ssh's default log level" 1 "host h1: ssh exited with status 2: .*secret file $T/nope: No such file" \
  "$NFSTORM" run $P --hosts "$T/hosts.one" --spawn ssh --ssh-config "$T/ssh_config.default" \
  --agent-path "$AGENT" --listen 127.0.0.1:$CPORT --secret-file "$SECRET" --expect-timeout 25s --remote-secret-file "$T/nope"

# usage: exit 2, one line
u() { local name=$1 re=$2; shift 2; want "$name" 2 "$re" "$NFSTORM" run $P "$@"; }
u "spawn what" "--spawn: bad value 'rsh' \(want ssh\)" --hosts "$T/hosts.one" --spawn rsh --secret-file "$SECRET"
u "no hosts" "--spawn ssh needs --hosts FILE" --spawn ssh --secret-file "$SECRET"
u "no secret" "--spawn ssh needs --secret-file" --spawn ssh --hosts "$T/hosts.one"
u "expect" "no --expect" --spawn ssh --hosts "$T/hosts.one" --secret-file "$SECRET" --expect 2
u "option alone" "need --spawn ssh" --hosts "$T/hosts.one" --agent-path /x
printf 'h1:2222\n' >"$T/hosts.port"
u "port in hosts" "'h1:2222': with --spawn ssh a line names an ssh destination" --spawn ssh --hosts "$T/hosts.port" \
  --secret-file "$SECRET"
u "ephemeral port" "--listen 127.0.0.1:0: --spawn ssh needs a fixed port" --spawn ssh --hosts "$T/hosts.one" \
  --secret-file "$SECRET" --listen 127.0.0.1:0
u "no dir" "the plan names no absolute directory" --spawn ssh --hosts "$T/hosts.one" --secret-file "$SECRET" \
  --filename=rel
u "min-agents" "--min-agents 2 is more than the 1 hosts" --spawn ssh --hosts "$T/hosts.one" --secret-file "$SECRET" \
  --min-agents 2
printf -- '-oProxyCommand=touch%%20/tmp/x\n' >"$T/hosts.opt"
u "option as host" "host '-oProxyCommand=.*': not an ssh destination" --spawn ssh --hosts "$T/hosts.opt" \
  --secret-file "$SECRET"
[ "$(grep -c Accepted "$SSHD_LOG")" -ge 2 ] || fail "sshd accepted no session (were the errors sshd's?)"
echo "ok: ssh spawn errors named per host (auth, unreachable, no binary, bad remote secret), exit 1 at once, nothing left; 10 usage errors exit 2"
