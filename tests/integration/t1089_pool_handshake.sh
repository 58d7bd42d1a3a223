#!/usr/bin/env bash
# The pool's submitter handshake, spoken by hand (py/pool_handshake.py): the
# pool's proof is the documented HMAC over the submitter's and the pool's
# nonces; a submitter whose proof is wrong, or is the agents' coordinator
# proof for the same nonces (a reflection), is refused by the pool with its
# reason and closed, and serve logs it; a proven submitter is kept.  The
# pool goes on, and a real submission still runs.
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
pool_has 1
prun "$T/o" "$T/e" --name=w --rw=write --bs=4k --size=8k --filename="$D/f" --json "$T/r.json" ||
  fail "run after the refusals: exit $?: $(tail -n 3 "$T/e")"
py "$T/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [a["ops"]["write"]["ops"] for a in r["phases"][0]["agents"]] == [2], r["phases"][0]["agents"]
PY
exit 0
