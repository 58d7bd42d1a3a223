#!/usr/bin/env bash
# Issue 23 item 5: nothing outlives its run.  kill -9 of `nfstorm serve`
# mid-run: its run child dies with it (it went on driving the agent to the
# end of the run before), the agent's session ends and it dials the next
# serve, and that serve removes the run directory the killed one left in
# $TMPDIR, and only it: a live serve's run directory (another pool,
# mid-run, same $TMPDIR), a look-alike without the ownership mark, one
# with a mark but another owner, and a symlink to a marked directory all
# stay.  The agent then serves the new pool.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dialin_lib.sh"
source "$(dirname "$0")/pool_lib.sh"
D=$T/d; mkdir -p "$D"
MARK=.nfstorm-serve-owner
start_serve; first=$SPID
dial_agent a "$D"
pool_has 1
prun "$T/o1" "$T/e1" --name=k --rw=write --bs=4k --size=1m --filename="$D/k" --runtime=60 --time_based &
sub=$!; PIDS+=("$sub")
wait_grep "$T/serve.log" "run from .* started on 1 agent \(pid [0-9]+\)" 15 || fail "the run did not start: $(tail -n 3 "$T/serve.log")"
child=$(sed -n 's/.*started on 1 agent (pid \([0-9]*\)).*/\1/p' "$T/serve.log" | tail -n 1)
stale=$(ls -d "$T"/nfstorm-serve.*)
[ "$(echo "$stale" | wc -l)" = 1 ] && [ -f "$stale/$MARK" ] || fail "no marked run directory: $stale"

# another pool in the same $TMPDIR, mid-run: its directory is live
P2=$(free_port)
TMPDIR=$T "$NFSTORM" serve --listen 127.0.0.1:$P2 --secret-file "$SECRET" >"$T/serve2.log" 2>&1 &
PIDS+=($!)
"$AGENT" --coordinator 127.0.0.1:$P2 --secret-file "$SECRET" --allow "$D" >"$T/b.log" 2>&1 &
PIDS+=($!)
wait_grep "$T/serve2.log" "\[1 in the pool\]" 15 || fail "the second pool got no agent: $(cat "$T/serve2.log")"
timeout 60 "$NFSTORM" run --pool 127.0.0.1:$P2 --secret-file "$SECRET" --name=l --rw=write --bs=4k --size=1m \
  --filename="$D/l" --runtime=60 --time_based >"$T/o2" 2>"$T/e2" &
PIDS+=($!)
wait_grep "$T/serve2.log" "run from .* started" 15 || fail "the second pool's run did not start"
live=$(ls -d "$T"/nfstorm-serve.* | grep -vx "$stale")
[ -f "$live/$MARK" ] || fail "the live pool's run directory has no mark: $live"

# look-alikes that are not a killed serve's
mkdir -m 700 "$T/nfstorm-serve.nomark"; echo data >"$T/nfstorm-serve.nomark/plan.fio"
mkdir -m 700 "$T/nfstorm-serve.other"; cp "$stale/$MARK" "$T/nfstorm-serve.other/"; echo data >"$T/nfstorm-serve.other/x"
chown -R 65534 "$T/nfstorm-serve.other"
mkdir -m 700 "$T/victim"; cp "$stale/$MARK" "$T/victim/"; echo data >"$T/victim/keep"
ln -s "$T/victim" "$T/nfstorm-serve.link"

{ kill -9 "$first"; wait "$first"; } 2>/dev/null
for _ in $(seq 100); do kill -0 "$child" 2>/dev/null || break; sleep 0.05; done
! kill -0 "$child" 2>/dev/null || fail "the run child (pid $child) outlived serve's kill -9"
wait_grep "$T/a.log" "session [0-9]+ with coordinator 127.0.0.1:$CPORT over" 15 ||
  fail "the agent did not leave the dead pool's run: $(tail -n 3 "$T/a.log")"
[ -d "$stale" ] || fail "the killed serve's directory is already gone: the test proves nothing"

start_serve
wait_grep "$T/serve.log" "removed $stale, the run directory of a serve that is gone \(pid $first\)" 5 ||
  fail "the new serve did not remove the stale directory: $(tail -n 3 "$T/serve.log")"
[ ! -e "$stale" ] || fail "$stale is still there: $(ls -la "$stale")"
[ -f "$live/$MARK" ] || fail "the live pool's run directory was removed"
[ -f "$T/nfstorm-serve.nomark/plan.fio" ] || fail "a directory without the mark was emptied"
[ -f "$T/nfstorm-serve.other/x" ] || fail "another owner's directory was emptied"
[ -f "$T/victim/keep" ] && [ -L "$T/nfstorm-serve.link" ] || fail "a symlink was followed"
[ "$(grep -c "removed $T/nfstorm-serve" "$T/serve.log")" = 1 ] || fail "more than one directory removed: $(grep removed "$T/serve.log")"
# the agent is the new pool's, idle, and runs its next run
pool_has 1
prun "$T/o3" "$T/e3" --name=n --rw=write --bs=4k --size=64k --filename="$D/n" --json "$T/r.json" ||
  fail "the agent does not serve the new pool: $(tail -n 3 "$T/e3")"
py "$T/r.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]["ops"] == 16
PY
# the new serve's own run directory went with its run, mark and all
left=$(ls -d "$T"/nfstorm-serve.* | grep -vx -e "$live" -e "$T/nfstorm-serve.nomark" -e "$T/nfstorm-serve.other" \
  -e "$T/nfstorm-serve.link")
[ -z "$left" ] || fail "the finished run left its directory: $left"
echo "kill -9 of serve: its run died with it, the agent came back, the stale directory (only it) removed"
