# Helpers for the pool tests (t1085-t1089): sourced after lib.sh and
# dialin_lib.sh.  A pool (nfstorm serve) on $CPORT, agents dialling it.

# start_serve: nfstorm serve on 127.0.0.1:$CPORT (and $SERVE_ARGS), its log in $T/serve.log;
# sets SPID and waits until it listens (a new "pool listening" line)
start_serve() {
  local before
  before=$(grep -c "pool listening on 127.0.0.1:$CPORT" "$T/serve.log" 2>/dev/null)
  # (its run directories in $T: this test's own, apart from its neighbours')
  TMPDIR=$T "$NFSTORM" serve --listen 127.0.0.1:$CPORT --secret-file "$SECRET" ${SERVE_ARGS:-} >>"$T/serve.log" 2>&1 &
  SPID=$!
  PIDS+=("$SPID")
  for _ in $(seq 50); do
    local now
    now=$(grep -c "pool listening on 127.0.0.1:$CPORT" "$T/serve.log" 2>/dev/null)
    [ "${now:-0}" -gt "${before:-0}" ] && return 0
    sleep 0.1
  done
  fail "serve did not start: $(cat "$T/serve.log")"
}

# pool_has N: wait (up to 15 s) until the running pool's last count is N
# agents (lines of an earlier serve, before its "pool listening", do not count)
pool_has() {
  for _ in $(seq 150); do
    [ "$(sed -n '/pool listening on/h; /pool listening on/!H; ${x;p}' "$T/serve.log" |
         grep -o '\[[0-9]* in the pool\]' | tail -n 1)" = "[$1 in the pool]" ] && return 0
    sleep 0.1
  done
  fail "the pool does not have $1 agents: $(tail -n 5 "$T/serve.log")"
}

# prun OUT ERR [run args...]: nfstorm run --pool (secret given), stdout in OUT, stderr in ERR
prun() {
  local out=$1 err=$2; shift 2
  timeout 60 "$NFSTORM" run --pool 127.0.0.1:$CPORT --secret-file "$SECRET" "$@" >"$out" 2>"$err"
}
