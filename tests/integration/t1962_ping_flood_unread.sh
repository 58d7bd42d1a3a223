#!/usr/bin/env bash
# t1962: an authenticated coordinator that floods pings and never reads
# the pongs cannot grow the agent's memory: past 1 MiB waiting to be
# written to it, pings go unanswered (net/peer.c, peer_backlogged).
# Before, every ping queued a pong: 3 s of flood took the agent's peak
# RSS from 18 MiB to hundreds of MiB (1.3 GiB after 8 s).  The agent
# then serves the next coordinator.  The same for nfstorm serve and an
# authenticated agent in its pool that floods it (700 MiB in 3 s before).
source "$(dirname "$0")/lib.sh"
ldd "$AGENT" | grep -q libasan && skip "ASan's quarantine keeps freed memory: RSS says nothing there"
D=$T/d; mkdir -p "$D"
head -c 32 /dev/urandom | base64 >"$T/secret"; chmod 600 "$T/secret"
AGENT_AUTH="--secret-file $T/secret" start_agent "$D"
hwm0=$(awk '/VmHWM/ {print $2}' /proc/$AGENT_PID/status)
python3 - "${AGENT_ADDR##*:}" "$T/secret" <<'PY' || fail "flood client failed"
import hmac, hashlib, os, socket, struct, sys, time
port, secret = int(sys.argv[1]), open(sys.argv[2], "rb").read().rstrip(b"\n")
def st(b): return bytes([0xa0 | len(b)]) + b
def frame(d):  # a msgpack map of str keys; values already packed
    b = bytes([0x80 | len(d)]) + b"".join(st(k) + v for k, v in d.items())
    return struct.pack(">I", len(b)) + b
def read_frame(s):
    f = s.makefile("rb"); n = struct.unpack(">I", f.read(4))[0]; return f.read(n)
s = socket.create_connection(("127.0.0.1", port)); s.settimeout(5)
cn = os.urandom(32)
s.sendall(frame({b"type": st(b"hello"), b"version": b"\x05", b"nonce": b"\xc4\x20" + cn}))
w = read_frame(s)
i = w.index(b"\xa5nonce\xc4\x20") + 8           # the agent's nonce: bin 32 after its key
mac = hmac.new(secret, b"nfstorm coordinator v1" + w[i:i + 32] + cn, hashlib.sha256).digest()
s.sendall(frame({b"type": st(b"auth"), b"mac": b"\xc4\x20" + mac}))
pings = frame({b"type": st(b"ping"), b"seq": b"\x01", b"t_ns": b"\x01"}) * 100
n, end = 0, time.time() + 3
while time.time() < end:
    s.sendall(pings); n += 100
print("pings sent:", n)
PY
hwm1=$(awk '/VmHWM/ {print $2}' /proc/$AGENT_PID/status)
echo "agent peak RSS: $hwm0 KiB before the flood, $hwm1 KiB after"
[ $((hwm1 - hwm0)) -lt 98304 ] || fail "a ping flood grew the agent's peak RSS by $(( (hwm1 - hwm0) / 1024 )) MiB"
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --secret-file "$T/secret" --quiet --json "$T/r.json" \
  --name=ok --rw=write --bs=4k --size=64k --filename="$D/ok" >"$T/o" 2>&1 || fail "next run: $(tail -n 2 "$T/o")"
py "$T/r.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]["ops"] == 16
PY
kill -0 "$AGENT_PID" || fail "agent died"

. "$(dirname "$0")/dialin_lib.sh"
. "$(dirname "$0")/pool_lib.sh"
start_serve
hwm0=$(awk '/VmHWM/ {print $2}' /proc/$SPID/status)
python3 - "$CPORT" "$SECRET" <<'PY' || fail "pool flood client failed"
import hmac, hashlib, os, socket, struct, sys, time
port, secret = int(sys.argv[1]), open(sys.argv[2], "rb").read().rstrip(b"\n")
def st(b): return bytes([0xa0 | len(b)]) + b
def frame(d):
    b = bytes([0x80 | len(d)]) + b"".join(st(k) + v for k, v in d.items())
    return struct.pack(">I", len(b)) + b
s = socket.create_connection(("127.0.0.1", port)); s.settimeout(5)
f = s.makefile("rb"); h = f.read(struct.unpack(">I", f.read(4))[0])   # the pool's hello
i = h.index(b"\xa5nonce\xc4\x20") + 8
cn, an = h[i:i + 32], os.urandom(32)
mac = hmac.new(secret, b"nfstorm agent v1" + cn + an, hashlib.sha256).digest()
s.sendall(frame({b"type": st(b"welcome"), b"version": b"\x05", b"host": st(b"evil"), b"ncpus": b"\x01",
                 b"pid": b"\x01", b"auth": b"\xc3", b"nonce": b"\xc4\x20" + an, b"mac": b"\xc4\x20" + mac}))
assert b"auth" in f.read(struct.unpack(">I", f.read(4))[0]), "the pool did not accept the agent"
s.sendall(frame({b"type": st(b"system"), b"kernel": st(b"k"), b"cpu_model": st(b"c"), b"mem_bytes": b"\x01"}))
pings = frame({b"type": st(b"ping"), b"seq": b"\x01", b"t_ns": b"\x01"}) * 100
n, end = 0, time.time() + 3
while time.time() < end:
    s.sendall(pings); n += 100
print("pings sent to the pool:", n)
PY
hwm1=$(awk '/VmHWM/ {print $2}' /proc/$SPID/status)
echo "serve peak RSS: $hwm0 KiB before the flood, $hwm1 KiB after"
[ $((hwm1 - hwm0)) -lt 98304 ] || fail "a ping flood grew serve's peak RSS by $(( (hwm1 - hwm0) / 1024 )) MiB"
kill -0 "$SPID" || fail "serve died: $(tail -n 3 "$T/serve.log")"
