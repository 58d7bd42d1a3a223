#!/usr/bin/env bash
# clean works for every way a fleet is gathered and never writes: through a
# pool (clean --pool is a clean on the pool's agents, not a run), for
# dial-in agents (clean --listen --expect N), a mixed fleet (--agents with
# --listen), and a clean that matched
# nothing says why (the files there are named for other agent indices).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
. "$(dirname "$0")/pool_lib.sh"
D=$T/d; mkdir -p "$D"
job="--name=w --rw=write --bs=4k --size=64k --filename=$D/f.\${agent}"

start_serve
dial_agent a "$D" --label a
dial_agent b "$D" --label b
pool_has 2

# clean --pool before any run: nothing written, and it says nothing matched
timeout 30 "$NFSTORM" clean --pool 127.0.0.1:$CPORT --secret-file "$SECRET" $job >"$T/c0" 2>&1 ||
  fail "clean --pool (nothing there): exit $?: $(cat "$T/c0")"
[ "$(ls -A "$D")" = "" ] || fail "clean --pool wrote: $(ls -A "$D")"
grep -q "^clean: nothing matched: none of the files the plan names for agents 0-1 is there" "$T/c0" ||
  fail "no reason for an empty clean: $(cat "$T/c0")"
grep -q "about to write\|^  *write" "$T/c0" && fail "clean --pool ran the plan: $(cat "$T/c0")"

# a pool run lays out f.0 and f.1; clean --pool removes exactly them
pool_has 2
prun "$T/o" "$T/e" $job || fail "pool run: exit $?: $(tail -n 3 "$T/e")"
[ "$(ls "$D" | tr '\n' ' ')" = "f.0 f.1 " ] || fail "the run wrote: $(ls "$D")"
pool_has 2
timeout 30 "$NFSTORM" clean --pool 127.0.0.1:$CPORT --secret-file "$SECRET" $job >"$T/c1" 2>&1 ||
  fail "clean --pool: exit $?: $(cat "$T/c1")"
grep -q "^clean: removed 2 files, 128KiB in all$" "$T/c1" || fail "clean --pool total: $(cat "$T/c1")"
[ "$(ls -A "$D")" = "" ] || fail "clean --pool left: $(ls -A "$D")"

# files of a run where these two agents were 2 and 3 of four: nothing matches, and it says why
head -c 4096 /dev/zero >"$D/f.2"; head -c 4096 /dev/zero >"$D/f.3"
pool_has 2
timeout 30 "$NFSTORM" clean --pool 127.0.0.1:$CPORT --secret-file "$SECRET" $job >"$T/c2" 2>&1 ||
  fail "clean --pool (other indices): exit $?: $(cat "$T/c2")"
grep -q "^clean: nothing matched: the plan's names expand to agents 0-1; the files there are named for agents 2-3 " "$T/c2" ||
  fail "no reason naming the other indices: $(cat "$T/c2")"
[ "$(ls "$D" | tr '\n' ' ')" = "f.2 f.3 " ] || fail "a clean that matched nothing removed: $(ls "$D")"
rm -f "$D"/f.*

# dial-in agents: clean --listen ADDR --expect N
kill "$SPID"; wait "$SPID" 2>/dev/null
LPORT=$(free_port)
for n in c d; do
  "$AGENT" --coordinator 127.0.0.1:$LPORT --secret-file "$SECRET" --allow "$D" >>"$T/$n.log" 2>&1 &
  PIDS+=($!)
done
timeout 60 "$NFSTORM" run --listen 127.0.0.1:$LPORT --expect 2 --secret-file "$SECRET" $job >"$T/r" 2>&1 ||
  fail "dial-in run: exit $?: $(tail -n 3 "$T/r")"
[ "$(ls "$D" | tr '\n' ' ')" = "f.0 f.1 " ] || fail "the dial-in run wrote: $(ls "$D")"
timeout 60 "$NFSTORM" clean --listen 127.0.0.1:$LPORT --expect 2 --secret-file "$SECRET" $job >"$T/c3" 2>&1 ||
  fail "clean --listen: exit $?: $(cat "$T/c3")"
grep -q "^clean: removed 2 files, 128KiB in all$" "$T/c3" || fail "clean --listen total: $(cat "$T/c3")"
[ "$(ls -A "$D")" = "" ] || fail "clean --listen left: $(ls -A "$D")"

# a mixed fleet: a listed agent (0) and the two that dial in (1, 2)
AGENT_AUTH="--secret-file $SECRET"
start_agent "$D"
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --listen 127.0.0.1:$LPORT --expect 2 --secret-file "$SECRET" $job \
  >"$T/r2" 2>&1 || fail "mixed run: exit $?: $(tail -n 3 "$T/r2")"
[ "$(ls "$D" | tr '\n' ' ')" = "f.0 f.1 f.2 " ] || fail "the mixed run wrote: $(ls "$D")"
timeout 60 "$NFSTORM" clean --agents "$AGENT_ADDR" --listen 127.0.0.1:$LPORT --expect 2 --secret-file "$SECRET" $job \
  >"$T/c4" 2>&1 || fail "mixed clean: exit $?: $(cat "$T/c4")"
grep -q "^clean: removed 3 files, 192KiB in all$" "$T/c4" || fail "mixed clean total: $(cat "$T/c4")"
[ "$(ls -A "$D")" = "" ] || fail "mixed clean left: $(ls -A "$D")"
exit 0
