#!/usr/bin/env bash
# t1961: serve's port (agents and submitters, on net/peer and net/listener)
# against strangers: random bytes, a header declaring 1 GiB, a frame sent
# byte by byte, a close mid-frame, a ping flood before authentication are
# each dropped at once; one that says nothing is dropped after the 5 s a
# stranger is given (docs/security.md); 40 at once from one address do not
# lock out the pool's agent or its submitter.  Then serve still has its
# agent and runs a submission, every op counted.
source "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
. "$(dirname "$0")/pool_lib.sh"
D=$T/d; mkdir -p "$D"
start_serve
dial_agent a "$D"
pool_has 1
python3 - "$CPORT" >"$T/strangers.out" <<'PY' &
import os, socket, struct, sys, time
port = int(sys.argv[1])
def conn():
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(10); return s
def dropped_in(s):      # seconds until serve hangs up (what it sent first is read away)
    t = time.time()
    try:
        while s.recv(65536): pass
    except ConnectionResetError: pass
    return time.time() - t
frame = lambda b: struct.pack(">I", len(b)) + b
ping = frame(b"\x83\xa4type\xa4ping\xa3seq\x01\xa3t_ns\x01")
s = conn(); s.sendall(b"\xff" + os.urandom(3000)); print("garbage %.1f" % dropped_in(s))
s = conn(); s.sendall(struct.pack(">I", 1 << 30)); print("gib %.1f" % dropped_in(s))
s = conn()
for b in frame(b"\x81\xa4type\xa5hello"):
    s.sendall(bytes([b])); time.sleep(0.01)
print("bytewise %.1f" % dropped_in(s))
s = conn(); s.sendall(struct.pack(">I", 100) + b"\x81" * 40); s.close()
s = conn()
try:
    for _ in range(10000): s.sendall(ping)
except OSError: pass
print("pings %.1f" % dropped_in(s))
crowd = [conn() for _ in range(40)]
print("crowd 40", flush=True)
s = conn(); print("silent %.1f" % dropped_in(s), flush=True)
time.sleep(30)
PY
PIDS+=($!)
wait_grep "$T/strangers.out" '^crowd 40$' 20 || fail "the strangers did not get through: $(cat "$T/strangers.out")"
# the crowd is there: the agent re-dials through it and a submission runs
stop_agent a
dial_agent a2 "$D"
pool_has 1
prun "$T/o" "$T/e" --name=w --rw=write --bs=4k --size=64k --filename="$D/f" --json "$T/r.json" \
  || fail "a submission among 40 strangers: exit $?: $(tail -n 3 "$T/e")"
py "$T/r.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]
assert (w["ops"], w["bytes"], w["errors"]) == (16, 65536, 0), w
PY
wait_grep "$T/strangers.out" '^silent' 20 || fail "a silent stranger was kept: $(cat "$T/strangers.out")"
py "$T/strangers.out" <<'PY'
import sys
t = dict(l.split()[0::len(l.split()) - 1] for l in open(sys.argv[1]) if not l.startswith("crowd"))
for k in ("garbage", "gib", "bytewise", "pings"):
    assert float(t[k]) < 2, "%s kept for %s s" % (k, t[k])
assert 4 <= float(t["silent"]) < 9, "silent stranger dropped after %s s (5 s)" % t["silent"]
PY
kill -0 "$SPID" || fail "serve died: $(tail -n 5 "$T/serve.log")"
echo "strangers dropped: $(grep -v crowd "$T/strangers.out" | tr '\n' ' ')"
