#!/usr/bin/env bash
# Issue 23 item 8: one run, one fleet, however it arrives.  Two listening
# agents named by --hosts (one labelled lst) and two agents that dial in
# (--listen --expect 2, labelled din-b and din-a) run one plan together:
# the listed agents are 0 and 1 in the file's order, the dial-ins 2 and 3
# sorted as --listen sorts them (din-a, din-b); agents=@LABEL reaches both
# kinds; with --repeat 2 each repetition gathers the dial-ins again after
# the same listed agents.  Before, the run refused --hosts with --listen.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dialin_lib.sh"
D=$T/d; mkdir -p "$D"
AGENT_AUTH="--secret-file $SECRET"
start_agent "$D"; l0=$AGENT_ADDR
start_agent "$D"; l1=$AGENT_ADDR
printf '%s label=lst\n%s\n' "$l0" "$l1" >"$T/hosts"
dial_agent b "$D" --label din-b
dial_agent a "$D" --label din-a
cat >"$T/p.fio" <<EOF
[all]
rw=write
bs=4k
size=64k
filename=$D/all.\${agent}
[some]
agents=@lst,@din-a
rw=write
bs=4k
size=32k
filename=$D/some.\${agent}
EOF
crun "$T/o1" "$T/p.fio" --hosts "$T/hosts" --expect 2 --expect-timeout 30s --json "$T/r.json" ||
  fail "a mixed fleet: exit $?: $(tail -n 3 "$T/o1")"
py "$T/r.json" "$l0" "$l1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ag = r["agents"]
assert [a["addr"] for a in ag[:2]] == sys.argv[2:4], [a["addr"] for a in ag]
assert [a.get("labels", "") for a in ag] == ["lst", "", "din-a", "din-b"], [a.get("labels") for a in ag]
w = [a["ops"]["write"]["ops"] for a in r["phases"][0]["agents"]]
assert w == [24, 16, 24, 16], w      # all: 16 each; some: 8 on agents 0 and 2
PY
ls "$D" | sort | tr '\n' ' ' | grep -qx "all.0 all.1 all.2 all.3 some.0 some.2 " || fail "files: $(ls "$D")"

# --repeat: the dial-ins are gathered again, after the same listed agents
rm -f "$D"/*
crun "$T/o2" "$T/p.fio" --hosts "$T/hosts" --expect 2 --expect-timeout 30s --repeat 2 --json "$T/set.json" ||
  fail "a mixed fleet, --repeat 2: exit $?: $(tail -n 3 "$T/o2")"
[ "$(grep -c '^nfstorm: agent joined: ' "$T/o2")" = 4 ] || fail "--repeat 2: not 4 'agent joined' lines (2 per repetition)"
py "$T/set.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["repeat"] == 2 and len(s["repetitions"]) == 2, (s["repeat"], len(s["repetitions"]))
for r in s["repetitions"]:
    w = [a["ops"]["write"]["ops"] for a in r["phases"][0]["agents"]]
    assert w == [24, 16, 24, 16], w
    assert [a.get("labels", "") for a in r["agents"]] == ["lst", "", "din-a", "din-b"]
PY
# still refused: --local has a secret of its own
expect_fail local "--local does not combine with --listen" "$NFSTORM" run --local 1 --listen 127.0.0.1:$CPORT \
  --expect 1 --secret-file "$SECRET" --name=x --rw=write --size=4k
echo "mixed fleet: 2 listed + 2 dial-in agents, listed first, labels across both; --repeat 2 gathered twice"
