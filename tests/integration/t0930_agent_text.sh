#!/usr/bin/env bash
# Issue 15 item 6: text from an agent (its host name, its error) reaches no
# terminal, HTML, CSV or JSON raw: no ESC, BEL or CR survives, and the error
# is named by the agent the coordinator dialled (agent 0 (ADDR)), never by
# the "agent 7 (10.9.9.9:4000)" the agent claims to be.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fake_agent.sh"
fake_agent text
timeout 30 "$NFSTORM" run --agents "$FAKE_ADDR" --name=x --rw=read --bs=4k --size=64k --filename=f \
  --json "$T/r.json" --html "$T/r.html" --csv "$T/r.csv" --csv-agents >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "exit status $rc, want 1 (the agent reported an error): $(tail -n2 "$T/out")"
for f in "$T/out" "$T/r.json" "$T/r.html" "$T/r.csv" "$T/r.json.journal"; do
  [ -s "$f" ] || fail "$(basename "$f") not written"
  n=$(tr -cd '\033\007\r' <"$f" | wc -c)
  [ "$n" -eq 0 ] || fail "$(basename "$f") holds $n raw ESC/BEL/CR bytes from the agent"
done
grep -q 'disk on fire' "$T/out" || fail "the agent's error is not shown: $(cat "$T/out")"
# every line with the agent's error names it as the coordinator knows it
bad=$(grep 'disk on fire' "$T/out" | grep -vc "agent 0 ($FAKE_ADDR)")
[ "$bad" -eq 0 ] || fail "$bad lines show the error without 'agent 0 ($FAKE_ADDR)': $(grep 'disk on fire' "$T/out")"
! grep -q '10\.9\.9\.9' "$T/out" "$T/r.json" || fail "the agent posed as another (10.9.9.9) in the output"
py "$T/r.json" "$FAKE_ADDR" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h = d["agents"][0]["host"]
assert all(0x20 <= ord(ch) < 0x7f for ch in h), "host not clean: %r" % h
assert "evil" in h, h
ph = d["phases"][0]
assert ph["verdict"] == "failed", ph["verdict"]
assert any(r.startswith("agent 0 (%s): " % sys.argv[2]) and "disk on fire" in r for r in ph["reasons"]), ph["reasons"]
PY
echo "agent text is cleaned and named by the coordinator"
