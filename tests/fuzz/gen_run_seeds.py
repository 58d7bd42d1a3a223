"""Seeds for fuzz_run: scripts (coordinator/run/run.h, run_feed_script) in which
two agents go through a two-phase plan honestly, or lie: totals that are not
the sum of their intervals, intervals too early, an error with terminal
controls, a welcome with a hostile host name, a flood of pings, a stranger,
a ready that does not decode, an agent that never gets ready, a layout
that stops.
usage: gen_run_seeds.py OUTDIR"""
import os, re, struct, sys

out = sys.argv[1]
# the protocol version of this tree (proto/msg.h): a welcome of another
# version ends the script at the handshake, and the seeds reach nothing
PROTO = int(re.search(r"#define PROTO_VERSION (\d+)",
                      open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../proto/msg.h")).read()).group(1))
os.makedirs(out, exist_ok=True)

def pack(o):
    if o is True: return b"\xc3"
    if o is False: return b"\xc2"
    if isinstance(o, int): return bytes([o]) if 0 <= o < 128 else b"\xcf" + struct.pack(">Q", o)
    if isinstance(o, float): return b"\xcb" + struct.pack(">d", o)
    if isinstance(o, bytes): return b"\xc4" + bytes([len(o)]) + o
    if isinstance(o, str):
        b = o.encode("latin-1")
        return (bytes([0xa0 | len(b)]) if len(b) < 32 else b"\xd9" + bytes([len(b)])) + b
    if isinstance(o, list): return bytes([0x90 | len(o)]) + b"".join(pack(x) for x in o)
    if isinstance(o, dict):
        return bytes([0x80 | len(o)]) + b"".join(pack(k) + pack(v) for k, v in o.items())
    raise TypeError(o)

def frame(msg):
    p = pack(msg)
    return struct.pack(">I", len(p)) + p

def rec(agent, msg):
    b = frame(msg) if isinstance(msg, dict) else msg
    return bytes([agent]) + struct.pack(">H", len(b)) + b

def tick(tenths):
    return bytes([0x80 | tenths])

T0 = 10**12

def stats(op, n):
    return {op: {"ops": n, "bytes": 4096 * n, "errors": 0,
                 "lat": {"count": n, "sum": 1000 * n, "min": 1000, "max": 1000, "runs": [317, 1, n]}}}   # 317: the bucket of 1000 ns

def handshake(host="fake"):
    s = b""
    for a in range(2):
        s += rec(a, {"type": "welcome", "version": PROTO, "host": host if a == 0 else "fake1", "ncpus": 2,
                     "pid": 1, "auth": False, "nonce": b"\0" * 32, "mac": b"\0" * 32})
    for i in range(8):
        for a in range(2):
            s += rec(a, {"type": "pong", "seq": i, "t_ping_ns": T0, "t_ns": T0 + 5})
    return s

def phase(p, op, nint=2, lie=None):
    s = b""
    for a in range(2):
        s += rec(a, {"type": "progress", "phase": p, "done_bytes": 1, "total_bytes": 2})
        s += rec(a, {"type": "ready", "phase": p})
    s += tick(3)
    for k in range(nint):
        s += tick(10)
        for a in range(2):
            s += rec(a, {"type": "interval", "phase": p, "index": k, "inflight": 1, "oldest_ns": 5,
                         "stats": stats(op, 10)})
            s += rec(a, {"type": "ping", "seq": k, "t_ns": T0})
    for a in range(2):
        tot = stats(op, 10 * nint if not (lie and a == 1) else 999)
        s += rec(a, {"type": "phase-done", "phase": p, "started_ns": T0, "duration_ns": 2 * 10**9,
                     "cpu_user_s": 0.5, "cpu_sys_s": 0.25, "cores": 2, "nintervals": nint, "totals": tot})
    return s

seeds = {
    "honest": handshake() + phase(0, "read") + phase(1, "write"),
    "totals-lie": handshake() + phase(0, "read", lie=True) + phase(1, "write"),
    "evil-text": handshake("\x1b]0;t\x07ev\x1b[2J\rl") + phase(0, "read")[:0] +
        b"".join(rec(a, {"type": "ready", "phase": 0}) for a in range(2)) + tick(5) +
        rec(1, {"type": "error", "text": "agent 0 (x): \x1b[31mboom\r"}) + tick(127) + tick(127),
    "early-intervals": handshake() + b"".join(rec(a, {"type": "ready", "phase": 0}) for a in range(2)) +
        b"".join(rec(0, {"type": "interval", "phase": 0, "index": k, "inflight": 0, "oldest_ns": 0,
                         "stats": stats("read", 1)}) for k in range(6)),
    "ping-flood": handshake() + b"".join(rec(0, {"type": "ping", "seq": i, "t_ns": 1}) for i in range(500)),
    "stranger": rec(0, b"HTTP/1.1 400 Bad Request\r\n\r\n"),
    # a ready whose phase is not a number: the run fails with the
    # decoder's reason (it once printed an uninitialised phase instead)
    "bad-ready": handshake() + rec(0, {"type": "ready", "phase": "x"}),
    # an agent that answers every ping but never gets ready, then one whose
    # layout stops: --prepare-timeout and --agent-timeout end them
    "never-ready": handshake() + rec(0, {"type": "ready", "phase": 0}) +
        b"".join(tick(10) + rec(1, {"type": "pong", "seq": 0, "t_ping_ns": T0, "t_ns": T0}) for _ in range(15)),
    "stuck-layout": handshake() + rec(0, {"type": "ready", "phase": 0}) +
        b"".join(tick(10) + rec(1, {"type": "progress", "phase": 0, "done_bytes": 4096, "total_bytes": 8192})
                 for _ in range(15)),
    "silent-agent": handshake() + b"".join(rec(a, {"type": "ready", "phase": 0}) for a in range(2)) +
        tick(10) + rec(0, {"type": "interval", "phase": 0, "index": 0, "inflight": 3, "oldest_ns": 9,
                           "stats": stats("read", 4)}) + tick(127),
}
for name, data in seeds.items():
    open(os.path.join(out, name), "wb").write(data)
print("%d seeds in %s" % (len(seeds), out))
