#!/usr/bin/env bash
# deploy/systemd/: both units pass `systemd-analyze verify` (no systemd as
# PID 1 needed) with ExecStart pointed at this build's agent, read
# /etc/nfstorm/agent.env, pass the secret as a credential, keep their
# hardening; agent.env names only real agent options.  A unit with a bad key
# must make verify speak (so a clean verify means something).
. "$(dirname "$0")/lib.sh"
command -v systemd-analyze >/dev/null || skip "systemd-analyze is missing (package systemd)"
[ -x "$AGENT" ] || fail "build first (make)"
D=$ROOT/deploy/systemd

verify() {  # UNIT-FILE: verify a copy run from this build; prints what verify says
  local u=$T/u/$(basename "$1")
  mkdir -p "$T/u" && sed "s|/usr/bin/nfstorm-agent|$AGENT|g" "$1" >"$u"
  SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$u" 2>&1
}

# The check can fail: an unknown key and a missing binary are reported.
printf '[Service]\nExecStart=/usr/bin/nfstorm-agent\nNoSuchKey=1\n' >"$T/bad.service"
out=$(verify "$T/bad.service")
echo "$out" | grep -q "Unknown key 'NoSuchKey'" || fail "verify did not report a bad key: $out"
printf '[Service]\nExecStart=/nonexistent/nfstorm-agent\n' >"$T/bad2.service"
out=$(verify "$T/bad2.service"); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q 'is not executable' || fail "verify did not report a missing binary (rc $rc): $out"

for u in nfstorm-agent.service nfstorm-agent-dialin.service; do
  out=$(verify "$D/$u"); rc=$?
  [ $rc -eq 0 ] && [ -z "$out" ] || fail "$u: systemd-analyze verify (rc $rc): $out"
  for want in '^EnvironmentFile=/etc/nfstorm/agent.env$' '^LoadCredential=secret:/etc/nfstorm/secret$' \
              '--secret-file \$\{CREDENTIALS_DIRECTORY\}/secret' '^NoNewPrivileges=yes$' \
              '^ProtectSystem=strict$' '^ReadWritePaths=-/mnt/nfstorm$' '^User=nfstorm$' \
              '^RestartPreventExitStatus=2$' '^WantedBy=multi-user.target$'; do
    grep -Eq -- "$want" "$D/$u" || fail "$u lacks /$want/"
  done
done
grep -q '^ExecStart=/usr/bin/nfstorm-agent --coordinator \${NFSTORM_AGENT_COORDINATOR} ' "$D/nfstorm-agent-dialin.service" \
  || fail "the dial-in unit does not name --coordinator"
grep -q '^Conflicts=nfstorm-agent-dialin.service$' "$D/nfstorm-agent.service" || fail "units do not conflict"

# agent.env: every variable (set or commented out) is an agent option, and the
# allowed directory is the one the units may write.
"$AGENT" --help >"$T/help" 2>&1
opts=$(grep -o -- '--[a-z][a-z0-9-]*' "$T/help" | sort -u)
grep -q -- '^--coordinator$' <<<"$opts" || opts=$(printf '%s\n--coordinator\n--label' "$opts")  # fleet contract, pending merge
n=0
while read -r var; do
  opt=--$(echo "${var#NFSTORM_AGENT_}" | tr 'A-Z_' 'a-z-')
  grep -qx -- "$opt" <<<"$opts" || fail "agent.env: $var is not an agent option ($opt)"
  n=$((n + 1))
done < <(grep -o '^#\?NFSTORM_AGENT_[A-Z_]*=' "$D/agent.env" | tr -d '#=')
[ $n -eq 9 ] || fail "agent.env: $n variables, expected 9"
grep -q '^NFSTORM_AGENT_ALLOW=/mnt/nfstorm$' "$D/agent.env" || fail "agent.env's allow is not the units' ReadWritePaths"
grep -q '^NFSTORM_AGENT_SECRET_FILE' "$D/agent.env" && fail "agent.env sets the secret (the units pass it as a credential)"
echo "ok: 2 units verify clean; agent.env has $n real agent variables"
