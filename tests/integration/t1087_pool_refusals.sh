#!/usr/bin/env bash
# What a pool refuses, each with one line and exit 2, while serve goes on:
# a submitter with the wrong secret (it does not trust the pool, nor the
# pool it), a plan the run rejects (a label no agent has: the run's own
# error), more agents than the pool has by --expect-timeout, options that
# do not combine with --pool; serve without --secret-file.  A stranger that
# speaks no nfstorm is dropped.  Then a good submission still runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
. "$(dirname "$0")/pool_lib.sh"
D=$T/d; mkdir -p "$D"
job="--name=w --rw=write --bs=4k --size=16k --filename=$D/f.\${agent}"

expect_fail "serve without secret" '^nfstorm: serve needs --secret-file' "$NFSTORM" serve --listen 127.0.0.1:$CPORT
expect_fail "serve bad address" "^nfstorm: --listen nowhere: want ADDR:PORT" "$NFSTORM" serve --listen nowhere --secret-file "$SECRET"
start_serve
dial_agent a "$D" --label a
dial_agent b "$D" --label b
pool_has 2

head -c 32 /dev/urandom | base64 >"$T/wrong"; chmod 600 "$T/wrong"
expect_fail "wrong secret" "^nfstorm: pool 127\.0\.0\.1:$CPORT: authentication failed: the pool's proof does not match --secret-file$" \
  "$NFSTORM" run --pool 127.0.0.1:$CPORT --secret-file "$T/wrong" $job
expect_fail "no secret" '^nfstorm: --pool needs --secret-file' "$NFSTORM" run --pool 127.0.0.1:$CPORT $job
expect_fail "--dry-run" '^nfstorm: --pool does not combine with --dry-run' \
  "$NFSTORM" run --pool 127.0.0.1:$CPORT --secret-file "$SECRET" $job --dry-run
expect_fail "--local" '^nfstorm: --pool does not combine with --local' \
  "$NFSTORM" run --pool 127.0.0.1:$CPORT --secret-file "$SECRET" $job --local 2
expect_fail "--no-wait alone" '^nfstorm: --pool-wait and --no-wait need --pool' "$NFSTORM" run $job --no-wait

# a plan the run refuses: its own message, its exit status
printf '[j]\nrw=write\nbs=4k\nsize=4k\nagents=@nosuch\nfilename=%s/x\n' "$D" >"$T/lab.fio"
expect_fail "unknown label" "^nfstorm: job 'j': agents=@nosuch: no agent has the label 'nosuch'$" \
  "$NFSTORM" run --pool 127.0.0.1:$CPORT --secret-file "$SECRET" "$T/lab.fio"
prun "$T/o" "$T/e" "$T/lab.fio"; [ $? = 2 ] || fail "unknown label: not exit 2"

# more agents than the pool has
pool_has 2
t0=$(date +%s%N)
expect_fail "expect 3" "^nfstorm: pool 127\.0\.0\.1:$CPORT: expected 3 agents, the pool had 2 within 1s$" \
  "$NFSTORM" run --pool 127.0.0.1:$CPORT --secret-file "$SECRET" $job --expect 3 --expect-timeout 1s
prun "$T/o" "$T/e" $job --expect 3 --expect-timeout 1s; [ $? = 2 ] || fail "expect 3: not exit 2"

# a stranger: dropped, the pool goes on
python3 - "$CPORT" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.recv(4096)                       # our hello
s.sendall(b"\x00\x00\x00\x05hello")
s.settimeout(5)
assert s.recv(4096) == b"", "the pool kept a stranger"
PY
[ $? = 0 ] || fail "a stranger was not dropped"

# serve is still there, with both agents, and runs a good plan
kill -0 "$SPID" || fail "serve died: $(tail -n 5 "$T/serve.log")"
pool_has 2
prun "$T/o" "$T/e" $job --expect 2 --json "$T/r.json" || fail "good run after refusals: exit $?: $(tail -n 3 "$T/e")"
py "$T/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [a["ops"]["write"]["ops"] for a in r["phases"][0]["agents"]] == [4, 4], r["phases"][0]["agents"]
PY
exit 0
