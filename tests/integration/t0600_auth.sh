#!/usr/bin/env bash
# Authentication: right secret served; wrong secret, no secret and a
# replayed handshake refused with the reason on both sides; loose secret
# files and a secretless agent refused at start.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
head -c 32 /dev/urandom | base64 >"$T/secret"; chmod 600 "$T/secret"
head -c 32 /dev/urandom | base64 >"$T/wrong"; chmod 600 "$T/wrong"
AGENT_AUTH="--secret-file $T/secret" start_agent "$D"
alog=$(ls "$T"/agent.*.log | grep -v out | head -1)
job=(--quiet --name=x --rw=write --bs=4k --size=256k)
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --secret-file "$T/secret" --json "$T/ok.json" "${job[@]}" \
  >"$T/o" 2>&1 || fail "right secret refused: $(tail -n1 "$T/o")"
expect_fail "wrong secret" "agent 0 \(127\.0\.0\.1:[0-9]+\): authentication failed" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --secret-file "$T/wrong" "${job[@]}"
grep -q "error from coordinator.*authentication failed" "$alog" || fail "agent did not log the wrong secret"
expect_fail "no secret" "requires authentication: give --secret-file" \
  "$NFSTORM" run --agents "$AGENT_ADDR" "${job[@]}"
# replay: record a good coordinator's bytes through a proxy, replay them
python3 "$(dirname "$0")/py/proxy.py" "$T/pport" "${AGENT_ADDR##*:}" "$T/rec" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$T/pport" ] && break; sleep 0.1; done
timeout 30 "$NFSTORM" run --agents "127.0.0.1:$(cat "$T/pport")" --secret-file "$T/secret" "${job[@]}" \
  >"$T/o" 2>&1 || fail "run through the proxy failed: $(tail -n1 "$T/o")"
python3 "$(dirname "$0")/py/replay.py" "${AGENT_ADDR##*:}" "$T/rec" >"$T/replayed"
grep -q "authentication failed" "$T/replayed" || fail "replayed handshake not refused: $(head -c 200 "$T/replayed")"
grep -q "authentication failed" "$alog" || fail "agent did not log the refused replay"
kill -0 "$AGENT_PID" || fail "agent died"
# the agent still serves the right coordinator
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --secret-file "$T/secret" "${job[@]}" >"$T/o" 2>&1 \
  || fail "not serving after refusals: $(tail -n1 "$T/o")"
# a coordinator with a secret refuses an --insecure agent
start_agent "$D"
# its warning names the port it listens on, not the :0 it was given
# (logged just after "listening on", which start_agent waited for)
wait_grep "$(ls -t "$T"/agent.*.log | head -n1)" "INSECURE: no authentication: anyone who can reach $AGENT_ADDR can run plans" 10 \
  || fail "the INSECURE warning does not name $AGENT_ADDR: $(grep -h INSECURE "$T"/agent.*.log)"
expect_fail "insecure agent" "does not authenticate" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --secret-file "$T/secret" "${job[@]}"
# start-up refusals
cp "$T/secret" "$T/open"; chmod 644 "$T/open"
expect_fail "world-readable secret" "accessible by group or others" "$AGENT" --listen 127.0.0.1:0 --allow "$D" --secret-file "$T/open"
expect_fail "no secret, no --insecure" "refusing to serve unauthenticated" "$AGENT" --listen 127.0.0.1:0 --allow "$D"
expect_fail "coordinator loose secret" "accessible by group or others" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --secret-file "$T/open" "${job[@]}"
echo "auth ok"
