#!/usr/bin/env bash
# nfstorm clean --hosts FILE --spawn ssh: the agents it starts over ssh dial
# back and remove the plan's files (it once refused: "clean: --spawn is for
# run"); no agent or ssh client outlives it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
. "$ROOT/tests/sshd.sh"
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || skip "openssh-server is not installed (scripts/install-deps.sh)"
trap 'sshd_stop; cleanup' EXIT
sshd_start || fail "sshd did not start"
D=$T/spawned-agents-$$; mkdir -p "$D"
printf 'h1 label=a\nh2 label=b\n' >"$T/hosts"
spawn=(--hosts "$T/hosts" --spawn ssh --ssh-config "$SSH_CONFIG" --agent-path "$AGENT" --listen 127.0.0.1:$CPORT
       --secret-file "$SECRET" --expect-timeout 20s)
job=(--name=w --rw=write --bs=4k --size=64k "--filename=$D/f.\${agent}")
timeout 60 "$NFSTORM" run "${spawn[@]}" "${job[@]}" >"$T/r" 2>&1 || fail "run: exit $?: $(tail -n 5 "$T/r")"
[ "$(ls "$D" | tr '\n' ' ')" = "f.0 f.1 " ] || fail "the run wrote: $(ls "$D")"
timeout 60 "$NFSTORM" clean "${spawn[@]}" "${job[@]}" >"$T/c" 2>&1 || fail "clean --spawn: exit $?: $(tail -n 5 "$T/c")"
grep -q "^clean: removed 2 files, 128KiB in all$" "$T/c" || fail "clean --spawn total: $(cat "$T/c")"
[ "$(ls -A "$D")" = "" ] || fail "clean --spawn left: $(ls -A "$D")"
for _ in $(seq 50); do
  pgrep -f -- "$D" >/dev/null || pgrep -f -- "$SSH_CONFIG" >/dev/null || exit 0
  sleep 0.1
done
fail "agents or ssh clients outlived the clean: $(pgrep -af -- "$D")"
