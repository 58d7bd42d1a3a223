# Sourced by the t093x tests after lib.sh: fake_agent MODE [SECRET_FILE]
# starts the hostile agent py/fake_agent.py on 127.0.0.1 (proving the
# secret of SECRET_FILE when given) and sets FAKE_ADDR.
fake_agent() {
  python3 "$ROOT/tests/integration/py/fake_agent.py" "$T/port.$1" "$@" >"$T/fake.$1.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do [ -s "$T/port.$1" ] && break; sleep 0.05; done
  [ -s "$T/port.$1" ] || fail "fake agent did not start: $(cat "$T/fake.$1.log")"
  FAKE_ADDR=127.0.0.1:$(cat "$T/port.$1")
}
