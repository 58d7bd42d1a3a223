#!/usr/bin/env bash
# Hostile bytes: garbage, a huge declared length, truncated and malformed
# frames, a silent client.  The agent survives each, logs why it closed the
# connection, and then serves a normal run.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
alog=$(ls "$T"/agent.*.log | grep -v out | head -1)
timeout 30 python3 "$(dirname "$0")/py/hostile.py" "${AGENT_ADDR##*:}" || fail "hostile client failed"
kill -0 "$AGENT_PID" || fail "agent died from hostile bytes"
grep -q "frame larger than the limit" "$alog" || fail "no log line for the oversized frame"
[ "$(grep -c "closing session" "$alog")" -ge 5 ] || fail "agent did not close the hostile connections: $(cat "$alog")"
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/r.json" --name=x --rw=write --bs=4k \
  --size=1m >"$T/o" 2>&1 || fail "agent does not serve after hostile bytes: $(tail -n1 "$T/o")"
py "$T/r.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]["ops"] == 256
PY
# a client that never says hello is dropped after 5 s and does not block others
python3 -c "import socket,time; s=socket.create_connection(('127.0.0.1', ${AGENT_ADDR##*:})); print('connected', flush=True); time.sleep(7)" >"$T/silent.out" &
PIDS+=($!)
wait_grep "$T/silent.out" '^connected$' 10 || fail "the silent client did not connect"
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=x --rw=read --bs=4k --size=1m >"$T/o" 2>&1 \
  || fail "a silent connection blocked the agent: $(tail -n1 "$T/o")"
wait_grep "$alog" "no hello and authentication within 5 s" 15 || fail "silent client not dropped after 5 s"
echo "hostile inputs survived"
