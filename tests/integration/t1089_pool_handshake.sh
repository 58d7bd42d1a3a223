#!/usr/bin/env bash
# The pool's submitter handshake, spoken by hand (py/pool_handshake.py): the
# pool's proof is the documented HMAC over the submitter's and the pool's
# nonces; a submitter whose proof is wrong, or is the agents' coordinator
# proof for the same nonces (a reflection), is refused by the pool with its
# reason and closed, and serve logs it; a proven submitter is kept; 65
# strangers from one address evict the oldest (64 may wait); an agent of
# another protocol version is refused naming both.  The pool goes on, and
# a real submission still runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
. "$(dirname "$0")/pool_lib.sh"
D=$T/d; mkdir -p "$D"
HS="$(dirname "$0")/py/pool_handshake.py"

start_serve
dial_agent a "$D"
pool_has 1
[ "$(python3 "$HS" "$CPORT" "$SECRET" good)" = ok ] || fail "a proven submitter was not kept"
[ "$(python3 "$HS" "$CPORT" "$SECRET" badproof)" = refused ] || fail "a wrong proof was not refused"
[ "$(python3 "$HS" "$CPORT" "$SECRET" agentproof)" = refused ] || fail "the agents' coordinator proof was taken"
[ "$(grep -c "^nfstorm serve: submitter 127\.0\.0\.1:[0-9]* refused: its proof does not match the pool's secret$" "$T/serve.log")" = 2 ] ||
  fail "serve did not log the two refusals: $(cat "$T/serve.log")"
# strangers are cheap: the 65th waiting from one address evicts the oldest
python3 - "$CPORT" <<'PY' || fail "pending strangers were not capped at 64 per address"
import socket, sys, time
port = int(sys.argv[1])
socks = []
for i in range(65):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(5)
    assert s.recv(4096), "no hello"       # the pool's hello: it took us
    socks.append(s)
    time.sleep(0.002)
socks[0].settimeout(3)
assert socks[0].recv(4096) == b"", "the oldest stranger was not evicted"
socks[64].settimeout(0.3)
try:
    socks[64].recv(1)
    raise SystemExit("the newest stranger was dropped")
except socket.timeout:
    pass
PY
grep -q "evicted: too many connections waiting to authenticate" "$T/serve.log" && fail "an eviction was logged as an agent or submitter leaving"
# an agent of a later version (its welcome lacks keys ours requires) is
# refused naming both versions, on serve's log and to the agent
PV=$("$NFSTORM" --version | sed -n 's/.*(protocol \([0-9]*\)).*/\1/p')
python3 "$(dirname "$0")/py/version_peer.py" welcome "$CPORT" 99 >"$T/future.out" 2>&1 ||
  fail "the future agent: $(cat "$T/future.out")"
grep -qx "got error text=protocol version mismatch: pool speaks $PV, agent 99 version=$PV" "$T/future.out" ||
  fail "the future agent was not told: $(cat "$T/future.out")"
for _ in $(seq 40); do grep -q "speaks protocol 99" "$T/serve.log" && break; sleep 0.05; done
grep -Eq "^nfstorm serve: refused: agent 127\.0\.0\.1:[0-9]+ speaks protocol 99, this pool $PV: upgrade one of them$" "$T/serve.log" ||
  fail "serve did not log the version refusal: $(cat "$T/serve.log")"
pool_has 1
prun "$T/o" "$T/e" --name=w --rw=write --bs=4k --size=8k --filename="$D/f" --json "$T/r.json" ||
  fail "run after the refusals: exit $?: $(tail -n 3 "$T/e")"
py "$T/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [a["ops"]["write"]["ops"] for a in r["phases"][0]["agents"]] == [2], r["phases"][0]["agents"]
PY
exit 0
