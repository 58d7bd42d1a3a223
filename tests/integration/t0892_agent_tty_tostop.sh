#!/usr/bin/env bash
# The agent freeze of issue 9 (defect 1): an agent running as a background
# job of a terminal with TOSTOP set (`stty tostop`), its log on that
# terminal, was stopped by SIGTTOU at its first log line (with --quiet: the
# first warning, such as a full disk).  From outside it looked wedged: main
# thread in epoll_wait, coordinator sockets unread in CLOSE-WAIT, no lease,
# output only when a debugger attached (which continues it).  It must keep
# serving: terminal job control never stops an agent.
source "$(dirname "$0")/lib.sh"
python3 "$ROOT/tests/integration/py/bg_tty_agent.py" "$AGENT" --listen 127.0.0.1:0 --insecure \
  --allow "$T" >"$T/info" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do grep -q listening "$T/info" && break; sleep 0.1; done
apid=$(cut -d' ' -f1 "$T/info"); addr=$(awk '{print $4}' "$T/info")
[ -n "$addr" ] || fail "agent did not start: $(cat "$T/info")"
PIDS+=("$apid")
for i in 1 2 3; do
  timeout 30 "$NFSTORM" run --agents "$addr" --quiet --name=t$i --rw=write --bs=4k --size=1m \
    --directory="$T" >"$T/o$i" 2>&1 || {
      st=$(awk '/^State/{print $2}' /proc/$apid/status 2>/dev/null)
      kill -CONT "$apid" 2>/dev/null
      fail "run $i on a background agent with a TOSTOP terminal: $(tail -n1 "$T/o$i") (agent state $st)"
    }
done
st=$(awk '/^State/{print $2}' /proc/$apid/status)
[ "$st" != "T" ] || fail "the agent is stopped (state T)"
echo "agent as a background job of a TOSTOP terminal: 3 runs served, state $st"
