#!/usr/bin/env bash
# t1960: a submitter (nfstorm run --pool) that reaches something that is no
# pool says so: a peer whose first bytes declare a 1 GiB frame, or random
# bytes, is refused at the frame header and named "not an nfstorm pool:
# frame larger than the limit" (exit 1, at once).  Before, the submitter
# blamed the other side: "closed before the handshake", though it was the
# one that hung up.  A stranger that closes mid-frame is still "closed
# before the handshake".
source "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
fake() {  # fake MODE: a listener that greets its one caller with MODE's bytes; its port in FPORT
  python3 - "$1" >"$T/fake.port" <<'PY' &
import os, socket, struct, sys, time
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
print(srv.getsockname()[1], flush=True)
c, _ = srv.accept()
mode = sys.argv[1]
if mode == "gib": c.sendall(struct.pack(">I", 1 << 30) + b"\x00" * 64)
elif mode == "garbage": c.sendall(b"\xff" + os.urandom(4095))
else: c.sendall(struct.pack(">I", 100) + b"\x81" * 10); c.close()
time.sleep(20)
PY
  PIDS+=($!)
  for _ in $(seq 100); do [ -s "$T/fake.port" ] && break; sleep 0.05; done
  FPORT=$(cat "$T/fake.port"); : >"$T/fake.port"
}
job="--name=w --rw=write --bs=4k --size=16k --filename=$T/f"
for mode in gib garbage; do
  fake $mode
  expect_fail "$mode" "^nfstorm: pool 127\.0\.0\.1:$FPORT: not an nfstorm pool: frame larger than the limit$" \
    "$NFSTORM" run --pool 127.0.0.1:$FPORT --secret-file "$SECRET" $job
done
fake midframe
expect_fail "midframe" "^nfstorm: pool 127\.0\.0\.1:$FPORT: closed before the handshake$" \
  "$NFSTORM" run --pool 127.0.0.1:$FPORT --secret-file "$SECRET" $job
echo "a stranger's oversized frame is named; a close is a close"
