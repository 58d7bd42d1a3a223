"""The pool's submitter handshake by hand (docs/protocol.md, "The pool"):
a tiny msgpack reader/writer, enough for hello, welcome, auth and error.
Usage: pool_handshake.py PORT SECRET_FILE good|badproof|agentproof
good: checks the pool's proof with the documented HMAC and proves back
(then expects the submission's 30 s wait, so it just closes); badproof:
sends a wrong proof and expects the pool's refusal text; agentproof: proves
with the agents' coordinator label (a reflection) and expects the refusal."""
import hashlib, hmac, os, socket, struct, sys

def pack(o):
    if isinstance(o, dict):
        out = bytes([0x80 | len(o)])
        for k, v in o.items():
            out += pack(k) + pack(v)
        return out
    if isinstance(o, str):
        b = o.encode()
        return bytes([0xa0 | len(b)]) + b if len(b) < 32 else b"\xd9" + bytes([len(b)]) + b
    if isinstance(o, bytes):
        return b"\xc4" + bytes([len(o)]) + o
    if isinstance(o, bool):
        return b"\xc3" if o else b"\xc2"
    if isinstance(o, int):
        return bytes([o]) if o < 128 else b"\xce" + struct.pack(">I", o)
    raise TypeError(o)

def unpack(b, i=0):
    t = b[i]
    if t >= 0x80 and t <= 0x8f:
        n, i, d = t & 15, i + 1, {}
        for _ in range(n):
            k, i = unpack(b, i)
            v, i = unpack(b, i)
            d[k] = v
        return d, i
    if t >= 0xa0 and t <= 0xbf:
        n = t & 31
        return b[i + 1:i + 1 + n].decode(), i + 1 + n
    if t == 0xd9:
        n = b[i + 1]
        return b[i + 2:i + 2 + n].decode(), i + 2 + n
    if t == 0xda:
        n = struct.unpack(">H", b[i + 1:i + 3])[0]
        return b[i + 3:i + 3 + n].decode(), i + 3 + n
    if t == 0xc4:
        n = b[i + 1]
        return b[i + 2:i + 2 + n], i + 2 + n
    if t < 0x80:
        return t, i + 1
    if t in (0xc2, 0xc3):
        return t == 0xc3, i + 1
    if t == 0xcc:
        return b[i + 1], i + 2
    if t == 0xcd:
        return struct.unpack(">H", b[i + 1:i + 3])[0], i + 3
    if t == 0xce:
        return struct.unpack(">I", b[i + 1:i + 5])[0], i + 5
    raise ValueError("msgpack type 0x%02x" % t)

def recv_frame(s):
    hdr = b""
    while len(hdr) < 4:
        c = s.recv(4 - len(hdr))
        if not c:
            return None
        hdr += c
    n = struct.unpack(">I", hdr)[0]
    body = b""
    while len(body) < n:
        c = s.recv(n - len(body))
        assert c, "closed mid-frame"
        body += c
    return unpack(body)[0]

def send(s, m):
    b = pack(m)
    s.sendall(struct.pack(">I", len(b)) + b)

port, secret_file, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
key = open(secret_file, "rb").read().rstrip(b"\r\n")
s = socket.create_connection(("127.0.0.1", port))
s.settimeout(10)
h = recv_frame(s)
assert h["type"] == "hello" and len(h["nonce"]) == 32, h
ns, nc = h["nonce"], os.urandom(32)
send(s, {"type": "hello", "version": h["version"], "nonce": nc})
w = recv_frame(s)
assert w["type"] == "welcome" and w["auth"] is True and w["nonce"] == ns, w
want = hmac.new(key, b"nfstorm pool v1" + nc + ns, hashlib.sha256).digest()
assert hmac.compare_digest(w["mac"], want), "the pool's proof is not HMAC(secret, 'nfstorm pool v1' || Nc || Ns)"
if mode == "good":
    mac = hmac.new(key, b"nfstorm submitter v1" + ns + nc, hashlib.sha256).digest()
elif mode == "agentproof":
    mac = hmac.new(key, b"nfstorm coordinator v1" + ns + nc, hashlib.sha256).digest()
else:
    mac = bytes(32)
send(s, {"type": "auth", "mac": mac})
if mode == "good":
    send(s, {"type": "ping", "seq": 1, "t_ns": 1})   # accepted and ignored while it waits for submit
    s.settimeout(1)
    try:
        r = s.recv(100)
        assert False, "the pool answered a proven submitter's ping with %r" % r
    except socket.timeout:
        pass
    print("ok")
    sys.exit(0)
e = recv_frame(s)
assert e and e["type"] == "error", e
assert e["text"] == "authentication failed: the submitter's proof does not match the pool's secret", e
assert recv_frame(s) is None, "the pool kept a submitter whose proof failed"
print("refused")
