#!/usr/bin/env bash
# `run --listen --expect N` when not enough good agents come: too few by the
# timeout is exit 2 naming who came, within the timeout + 2 s; --min-agents
# lets the run go on with fewer; a stranger, an agent with another secret
# and an --insecure agent are refused and never count, and the agent with
# the wrong secret says so in its log once, not once per retry.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
D=$T/d; mkdir -p "$D"
JOB="--name=w --rw=write --bs=4k --size=64k --filename=$D/f.\${agent}"

dial_agent a "$D" --label a
dial_agent b "$D" --label b
# another secret, and no secret at all
head -c 32 /dev/urandom | base64 >"$T/other"; chmod 600 "$T/other"
"$AGENT" --coordinator 127.0.0.1:$CPORT --secret-file "$T/other" --allow "$D" --label bad >"$T/bad.log" 2>&1 &
PIDS+=($!)
"$AGENT" --coordinator 127.0.0.1:$CPORT --insecure --allow "$D" --label open >"$T/open.log" 2>&1 &
PIDS+=($!)
# strangers: one sends text, one declares a 1 GiB frame, one says nothing
( python3 - $CPORT <<'PY' &
import socket, sys, time
port = int(sys.argv[1])
end = time.time() + 5
while time.time() < end:
    for payload in (b"GET / HTTP/1.0\r\n\r\n", b"\x40\x00\x00\x00" + b"x" * 64, b""):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=1)
            if payload:
                s.sendall(payload)
            time.sleep(0.05)
            s.close()
        except OSError:
            pass
    time.sleep(0.1)
PY
) 
PIDS+=($!)

s=$(date +%s.%N)
crun "$T/o1" $JOB --expect 3 --expect-timeout 3s; rc=$?
e=$(date +%s.%N)
[ $rc = 2 ] || fail "too few: exit $rc, want 2: $(tail -n 3 "$T/o1")"
python3 -c "import sys; d = $e - $s; sys.exit(0 if 3 <= d < 5 else 1)" ||
  fail "too few: took $(python3 -c "print(round($e - $s, 1))") s (want 3-5 s for --expect-timeout 3s)"
grep -Eq "^nfstorm: expected 3 agents, 2 joined within 3s: [^ ]+ \(127\.0\.0\.1:[0-9]+\), [^ ]+ \(127\.0\.0\.1:[0-9]+\)$" "$T/o1" ||
  fail "too few: no 'expected 3 agents, 2 joined within 3s: a (..), b (..)' line: $(cat "$T/o1")"
[ "$(grep -c 'agent joined' "$T/o1")" = 2 ] || fail "too few: a refused peer counted: $(grep joined "$T/o1")"
grep -q "labels=bad\|labels=open" "$T/o1" && fail "a refused agent joined: $(grep joined "$T/o1")"

# --min-agents 2: the same two agents run
rm -f "$D"/f.*
crun "$T/o2" $JOB --expect 3 --min-agents 2 --expect-timeout 6s --json "$T/r2.json" ||
  fail "--min-agents 2: exit $?: $(tail -n 3 "$T/o2")"
grep -q "2 of 3 agents joined within 6 s: running with them (--min-agents 2)" "$T/o2" ||
  fail "--min-agents: no notice: $(cat "$T/o2")"
[ "$(cd "$D" && ls f.* | tr '\n' ' ')" = "f.0 f.1 " ] || fail "--min-agents: files $(ls "$D")"
py "$T/r2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["agents"]) == 2, r["agents"]
assert [a["ops"]["write"]["ops"] for a in r["phases"][0]["agents"]] == [16, 16]
PY
# --min-agents 3 of --expect 3 with two good agents: still too few
crun "$T/o3" $JOB --expect 3 --min-agents 3 --expect-timeout 1s; rc=$?
[ $rc = 2 ] || fail "--min-agents 3: exit $rc, want 2"

# the refused agents are still running, and said why once
for n in bad open; do kill -0 "${PIDS[$([ $n = bad ] && echo 2 || echo 3)]}" 2>/dev/null || fail "agent $n exited: $(tail -n 3 "$T/$n.log")"; done
# it retried several times, and warned once per change of reason (at most
# once per coordinator run here: between runs nothing listens)
nwarn=$(grep -c "warn: .*authentication failed" "$T/bad.log")
ntry=$(grep -c "info: closing session .*authentication failed" "$T/bad.log")
[ "$nwarn" -ge 1 ] && [ "$nwarn" -le 3 ] && [ "$ntry" -gt "$nwarn" ] ||
  fail "wrong-secret agent: $nwarn warnings for $ntry refused attempts (want 1-3 warnings, fewer than attempts): $(grep warn "$T/bad.log" | head -n 5)"
grep -q "coordinator 127.0.0.1:$CPORT: coordinator reported an error: authentication failed" "$T/bad.log" ||
  fail "wrong-secret agent: no clear refusal in its log: $(grep warn "$T/bad.log" | head -n 3)"
grep -q "does not authenticate (--insecure)" "$T/open.log" || fail "--insecure agent: not told why: $(grep warn "$T/open.log" | head -n 3)"

# bad usage: exit 2, one line
expect_fail "--listen without --expect" "needs --expect" "$NFSTORM" run --listen 127.0.0.1:$CPORT --secret-file "$SECRET" $JOB
expect_fail "--listen without secret" "needs --secret-file" "$NFSTORM" run --listen 127.0.0.1:$CPORT --expect 1 $JOB
expect_fail "--listen and --local" "--local does not combine with --listen" "$NFSTORM" run --listen 127.0.0.1:$CPORT --local 1 --expect 1 --secret-file "$SECRET" $JOB
expect_fail "--min-agents above --expect" "more than --expect" "$NFSTORM" run --listen 127.0.0.1:$CPORT --expect 1 --min-agents 2 --secret-file "$SECRET" $JOB
expect_fail "--expect without --listen" "need --listen" "$NFSTORM" run --expect 2 $JOB
expect_fail "bad listen address" "want ADDR:PORT" "$NFSTORM" run --listen nowhere --expect 1 --secret-file "$SECRET" $JOB
expect_fail "agent bad label" "label" "$AGENT" --coordinator 127.0.0.1:1 --insecure --allow "$D" --label 'a b'
expect_fail "agent label without coordinator" "needs --coordinator" "$AGENT" --insecure --allow "$D" --label a
expect_fail "agent bad coordinator" "want HOST:PORT" "$AGENT" --coordinator nowhere --insecure --allow "$D"
expect_fail "agent both" "contradict" "$AGENT" --coordinator 127.0.0.1:1 --listen 127.0.0.1:0 --insecure --allow "$D"
expect_fail "agent env switch" "NFSTORM_AGENT_INSECURE=maybe" env NFSTORM_AGENT_INSECURE=maybe "$AGENT" --allow "$D"
# every agent option has its variable, named in --help and in docs/fleet.md
"$AGENT" --help >"$T/help"
opts=$(sed -n 's/^  \(--[a-z-]*\).*/\1/p' "$T/help" | grep -v -e '--help' -e '--version')
[ "$(echo "$opts" | wc -w)" -ge 13 ] || fail "--help lists only: $opts"
for o in $opts; do
  v=NFSTORM_AGENT_$(echo "${o#--}" | tr a-z- A-Z_)
  grep -q "$v" "$T/help" || fail "--help does not name $v"
  grep -q "\`$v\` | \`$o" "$ROOT/docs/fleet.md" || fail "docs/fleet.md does not list $v for $o"
done
echo "ok: too few is exit 2 in $(python3 -c "print(round($e - $s, 1))") s naming 2 agents; --min-agents ran 2; wrong secret, --insecure and strangers never counted"
