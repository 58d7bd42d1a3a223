"""A peer that dials a listening coordinator (run --listen) and answers its
hello the way MODE says, to check what a listening coordinator counts and
refuses.  Prints the coordinator's error text, if any, on stdout.
usage: dial_peer.py PORT SECRET_FILE MODE
  legacy    a valid proof, but a welcome without the optional "labels" key
            (an older agent): it must count; it then stays connected,
            answering pings, until the coordinator hangs up
  version   a valid proof at protocol version 99: refused, both versions named
  labels    a valid proof with labels "a b": refused
  insecure  auth false: refused
  leave     as legacy, but hangs up 0.5 s after our auth: it no longer counts"""
import hashlib, hmac, os, socket, struct, sys, time

port, secret_file, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
secret = open(secret_file, "rb").read().rstrip(b"\n")

# ---- the little msgpack this needs: maps of str/uint/bool/bin/str values ----
def pack(o):
    if o is True: return b"\xc3"
    if o is False: return b"\xc2"
    if isinstance(o, int): return b"\xcf" + struct.pack(">Q", o)
    if isinstance(o, bytes): return b"\xc6" + struct.pack(">I", len(o)) + o
    if isinstance(o, str):
        b = o.encode(); return b"\xdb" + struct.pack(">I", len(b)) + b
    if isinstance(o, dict):
        return b"\xdf" + struct.pack(">I", len(o)) + b"".join(pack(k) + pack(v) for k, v in o.items())
    raise TypeError(o)

def unpack(b, i):
    t = b[i]
    if t <= 0x7f: return t, i + 1
    if 0x80 <= t <= 0x8f: return umap(b, i + 1, t & 0x0f)
    if 0xa0 <= t <= 0xbf: n = t & 0x1f; return b[i + 1:i + 1 + n].decode(), i + 1 + n
    if t in (0xc2, 0xc3): return t == 0xc3, i + 1
    ints = {0xcc: ">B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q"}
    if t in ints:
        n = struct.calcsize(ints[t]); return struct.unpack(ints[t], b[i + 1:i + 1 + n])[0], i + 1 + n
    lens = {0xc4: ">B", 0xc5: ">H", 0xc6: ">I", 0xd9: ">B", 0xda: ">H", 0xdb: ">I"}
    if t in lens:
        w = struct.calcsize(lens[t]); n = struct.unpack(lens[t], b[i + 1:i + 1 + w])[0]
        raw = b[i + 1 + w:i + 1 + w + n]
        return (raw if t <= 0xc6 else raw.decode()), i + 1 + w + n
    if t in (0xde, 0xdf):
        f = ">H" if t == 0xde else ">I"; w = struct.calcsize(f)
        return umap(b, i + 1 + w, struct.unpack(f, b[i + 1:i + 1 + w])[0])
    raise ValueError("msgpack type 0x%02x" % t)

def umap(b, i, n):
    d = {}
    for _ in range(n):
        k, i = unpack(b, i); v, i = unpack(b, i); d[k] = v
    return d, i

rbuf = b""
def recv(s):
    global rbuf
    while True:
        if len(rbuf) >= 4:
            n = struct.unpack(">I", rbuf[:4])[0]
            if len(rbuf) >= 4 + n:
                m, _ = unpack(rbuf, 4); rbuf = rbuf[4 + n:]; return m
        d = s.recv(65536)
        if not d: return None
        rbuf += d

def send(s, m):
    p = pack(m); s.sendall(struct.pack(">I", len(p)) + p)

def dial(port):
    # the coordinator may not be listening yet on a loaded machine: retry
    for _ in range(200):
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=30)
        except ConnectionRefusedError:
            time.sleep(0.05)
    sys.exit("cannot connect to 127.0.0.1:%d" % port)

s = dial(port)
hello = recv(s)
assert hello and hello["type"] == "hello", hello
anonce = os.urandom(32)
mac = hmac.new(secret, b"nfstorm agent v1" + hello["nonce"] + anonce, hashlib.sha256).digest()
w = {"type": "welcome", "version": 99 if mode == "version" else hello["version"], "host": "old",
     "ncpus": 1, "pid": os.getpid(), "auth": mode != "insecure", "nonce": anonce,
     "mac": b"\0" * 32 if mode == "insecure" else mac}
if mode == "labels":
    w["labels"] = "a b"
send(s, w)
if mode == "leave":
    s.settimeout(0.5)
while True:
    try:
        m = recv(s)
    except socket.timeout:
        break               # leave: hang up
    if m is None:
        break
    if m["type"] == "error":
        print(m["text"]); sys.stdout.flush()
    elif m["type"] == "ping":
        send(s, {"type": "pong", "seq": m["seq"], "t_ping_ns": m["t_ns"], "t_ns": m["t_ns"]})
    elif m["type"] == "auth":
        print("auth received"); sys.stdout.flush()
