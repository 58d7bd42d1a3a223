# Helpers for the dial-in tests (t1000-t1019): sourced after lib.sh.
# A secret, a free port for the coordinator, and agents that dial it.
SECRET=$T/secret
head -c 32 /dev/urandom | base64 >"$SECRET"; chmod 600 "$SECRET"
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
CPORT=$(free_port)

# dial_agent NAME ALLOWDIR [more agent args]: an agent dialling 127.0.0.1:$CPORT,
# its log in $T/NAME.log; sets DPID (and DPIDS[NAME]) for kill/restart
declare -A DPIDS
dial_agent() {
  local name=$1 allow=$2; shift 2
  "$AGENT" --coordinator 127.0.0.1:$CPORT --secret-file "$SECRET" --allow "$allow" "$@" \
    >>"$T/$name.log" 2>&1 &
  DPID=$!
  DPIDS[$name]=$DPID
  PIDS+=("$DPID")
}

# stop_agent NAME: SIGTERM, and wait until it is gone
stop_agent() {
  local pid=${DPIDS[$1]}
  kill "$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  fail "agent $1 did not stop on SIGTERM"
}

# crun OUT [run args...]: nfstorm run --listen on $CPORT (secret given), output in OUT
crun() {
  local out=$1; shift
  timeout 60 "$NFSTORM" run --listen 127.0.0.1:$CPORT --secret-file "$SECRET" "$@" >"$out" 2>&1
}
