"""A hostile agent for the coordinator's tests: it speaks nfstorm's protocol
(4-byte big-endian length + msgpack map, see proto/msg.c) well enough to
be run, then lies in the way MODE says.  Serves one coordinator.
usage: fake_agent.py PORT_FILE MODE [SECRET_FILE]
  text      host name and error text full of terminal controls (ESC[2J, an
            OSC title, \\r) and an error that poses as another agent
  mismatch  phase-done totals that are not the sum of its intervals
  flood     hundreds of intervals at once, as fast as the socket takes them
  pingflood thousands of pings at once
  honest    what a real agent would send (two intervals, matching totals)
  trickle   honest, but its phase-done (padded to 3 KiB with a key the
            coordinator ignores) crawls in 64-byte pieces every 0.1 s, as a
            large frame does through a link the agent's own load fills; no
            ping is answered meanwhile: only the bytes show it is alive
  neverready  takes the plan and answers every ping, but never sends ready
  stuckprogress  takes the plan, reports a layout of 1 MiB stuck at 4 KiB
            every half second (and answers pings), never sends ready
  nointervals  gets ready and starts, then only answers pings: no interval,
            no phase-done
With SECRET_FILE it proves the secret as a real agent does (HMAC-SHA256 over
"nfstorm agent v1", the coordinator's nonce and its own: docs/security.md);
without, it says it does not authenticate.
The port it listens on (127.0.0.1 only) goes to PORT_FILE."""
import hashlib, hmac, os, socket, struct, sys, time

port_file, mode = sys.argv[1], sys.argv[2]
secret = open(sys.argv[3], "rb").read().rstrip(b"\r\n") if len(sys.argv) > 3 else None

# ---- msgpack: just what the protocol uses ----
def pack(o):
    if o is None:
        return b"\xc0"
    if o is True:
        return b"\xc3"
    if o is False:
        return b"\xc2"
    if isinstance(o, int):
        assert o >= 0
        if o < 128:
            return bytes([o])
        return b"\xcf" + struct.pack(">Q", o)
    if isinstance(o, float):
        return b"\xcb" + struct.pack(">d", o)
    if isinstance(o, (bytes, bytearray)):
        return b"\xc6" + struct.pack(">I", len(o)) + bytes(o)
    if isinstance(o, str):
        b = o.encode("latin-1")
        return b"\xdb" + struct.pack(">I", len(b)) + b
    if isinstance(o, list):
        return b"\xdd" + struct.pack(">I", len(o)) + b"".join(pack(x) for x in o)
    if isinstance(o, dict):
        return b"\xdf" + struct.pack(">I", len(o)) + b"".join(pack(k) + pack(v) for k, v in o.items())
    raise TypeError(o)

def unpack(b, i=0):
    t = b[i]
    if t <= 0x7f: return t, i + 1
    if 0x80 <= t <= 0x8f: return _map(b, i + 1, t & 0x0f)
    if 0x90 <= t <= 0x9f: return _arr(b, i + 1, t & 0x0f)
    if 0xa0 <= t <= 0xbf: n = t & 0x1f; return b[i + 1:i + 1 + n].decode("latin-1"), i + 1 + n
    if t >= 0xe0: return t - 256, i + 1
    if t == 0xc0: return None, i + 1
    if t == 0xc2: return False, i + 1
    if t == 0xc3: return True, i + 1
    fixed = {0xcc: ">B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q", 0xd0: ">b", 0xd1: ">h", 0xd2: ">i",
             0xd3: ">q", 0xca: ">f", 0xcb: ">d"}
    if t in fixed:
        f = fixed[t]; n = struct.calcsize(f)
        return struct.unpack(f, b[i + 1:i + 1 + n])[0], i + 1 + n
    lens = {0xc4: ">B", 0xc5: ">H", 0xc6: ">I", 0xd9: ">B", 0xda: ">H", 0xdb: ">I"}
    if t in lens:
        f = lens[t]; w = struct.calcsize(f); n = struct.unpack(f, b[i + 1:i + 1 + w])[0]
        raw = b[i + 1 + w:i + 1 + w + n]
        return (raw if t in (0xc4, 0xc5, 0xc6) else raw.decode("latin-1")), i + 1 + w + n
    if t in (0xdc, 0xdd, 0xde, 0xdf):
        f = ">H" if t in (0xdc, 0xde) else ">I"; w = struct.calcsize(f)
        n = struct.unpack(f, b[i + 1:i + 1 + w])[0]
        return (_arr if t in (0xdc, 0xdd) else _map)(b, i + 1 + w, n)
    raise ValueError("msgpack type 0x%02x" % t)

def _map(b, i, n):
    d = {}
    for _ in range(n):
        k, i = unpack(b, i); v, i = unpack(b, i); d[k] = v
    return d, i

def _arr(b, i, n):
    a = []
    for _ in range(n):
        v, i = unpack(b, i); a.append(v)
    return a, i

# ---- frames ----
def send(s, msg):
    p = pack(msg)
    s.sendall(struct.pack(">I", len(p)) + p)

def frame(msg):
    p = pack(msg)
    return struct.pack(">I", len(p)) + p

rbuf = b""
def recv(s):
    global rbuf
    while True:
        if len(rbuf) >= 4:
            n = struct.unpack(">I", rbuf[:4])[0]
            if len(rbuf) >= 4 + n:
                m, _ = unpack(rbuf, 4)
                rbuf = rbuf[4 + n:]
                return m
        d = s.recv(65536)
        if not d:
            return None
        rbuf += d

def ops(n, lat_ns=100000):
    """One op type's stats: n reads of 4 KiB, all at lat_ns: one run of one
    bucket, b (the histogram form of common/hist_codec.h)."""
    # the bucket holding lat_ns (common/hist.h): min and max must lie in it
    shift = max(lat_ns.bit_length() - 7, 0)
    b = lat_ns if lat_ns < 128 else (shift + 1) * 64 + ((lat_ns >> shift) - 64)
    return {"read": {"ops": n, "bytes": 4096 * n, "errors": 0,
                     "lat": {"count": n, "sum": n * lat_ns, "min": lat_ns, "max": lat_ns, "runs": [b, 1, n]}}}

def interval(k, n):
    return {"type": "interval", "phase": 0, "index": k, "inflight": 0, "oldest_ns": 0, "stats": ops(n)}

def phase_done(nint, totals, started):
    return {"type": "phase-done", "phase": 0, "started_ns": started, "duration_ns": 1000000000,
            "cpu_user_s": 0.01, "cpu_sys_s": 0.01, "cores": 2, "nintervals": nint, "totals": totals}

EVIL_HOST = "\x1b]0;owned title\x07evil\x1b[2J\rhost"
EVIL_ERROR = "agent 7 (10.9.9.9:4000): \x1b[2J\x1b[31mdisk on fire\r\x1b]0;t\x07"

srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
open(port_file + ".tmp", "w").write(str(srv.getsockname()[1]))
import os
os.rename(port_file + ".tmp", port_file)
srv.settimeout(60)          # never outlive a test that did not dial it
s, _ = srv.accept()
s.settimeout(None)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

hello = recv(s)
assert hello and hello["type"] == "hello", hello
nonce = os.urandom(32)
mac = hmac.new(secret, b"nfstorm agent v1" + hello["nonce"] + nonce, hashlib.sha256).digest() if secret else b"\0" * 32
send(s, {"type": "welcome", "version": hello["version"],
         "host": EVIL_HOST if mode == "text" else "fake", "ncpus": 2, "pid": os.getpid(),
         "auth": secret is not None, "nonce": nonce, "mac": mac})
started = 0
while True:
    try:
        m = recv(s)
    except socket.timeout:
        # stuckprogress: the layout that never moves
        send(s, {"type": "progress", "phase": 0, "done_bytes": 4096, "total_bytes": 1 << 20})
        continue
    if m is None:
        break
    t = m["type"]
    if t == "ping":
        send(s, {"type": "pong", "seq": m["seq"], "t_ping_ns": m["t_ns"], "t_ns": time.monotonic_ns()})
    elif t == "plan" and mode == "stuckprogress":
        s.settimeout(0.5)
    elif t == "plan" and mode != "neverready":
        send(s, {"type": "ready", "phase": 0})
    elif t == "start":
        t0 = m["t0_ns"]
        while time.monotonic_ns() < t0:
            time.sleep(0.001)
        started = time.monotonic_ns()
        if mode == "nointervals":
            continue
        if mode == "flood":
            burst = b"".join(frame(interval(k, 1)) for k in range(500))
            try:
                s.sendall(burst)
                s.sendall(frame(phase_done(500, ops(500), started)))
            except OSError:
                pass
            continue
        if mode == "pingflood":
            try:
                s.sendall(b"".join(frame({"type": "ping", "seq": i, "t_ns": i}) for i in range(5000)))
            except OSError:
                pass
        if mode == "text":
            send(s, {"type": "error", "text": EVIL_ERROR})
        # two honest intervals, one per second
        for k in range(2):
            while time.monotonic_ns() < t0 + (k + 1) * 1000000000:
                time.sleep(0.005)
            try:
                send(s, interval(k, 10))
            except OSError:
                break
        totals = ops(1000) if mode == "mismatch" else ops(20)
        try:
            if mode == "trickle":
                pd = phase_done(2, totals, started)
                pd["padding"] = b"\0" * 3072
                f = frame(pd)
                for i in range(0, len(f), 64):
                    s.sendall(f[i:i + 64])
                    time.sleep(0.1)
            else:
                send(s, phase_done(2, totals, started))
        except OSError:
            pass
    elif t == "stop":
        pass
s.close()
