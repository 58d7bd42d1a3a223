"""Peers of another protocol version, for t1080: each plays one side of
the handshake as a future (or older) nfstorm would, to check that the
real programs refuse it at connect time naming both versions.
usage: version_peer.py ROLE ARGS...
  agent PORT_FILE welcome V   listen; answer the hello with a welcome of
                              version V that lacks most keys this version
                              requires and has keys it does not know
  agent PORT_FILE error V     listen; answer the hello with an error
                              {text, version: V}, as a refusing agent of
                              version V does
  agent PORT_FILE olderror    listen; answer with an error without the
                              version key, as older agents do
      (agent: serves connections until killed; prints each message it
       got after its answer as "got TYPE text=... version=...")
  dial PORT V                 dial a listening agent, send hello version V
                              (no nonce); print the answer
  coordinator PORT V OWN W    listen for a dialling agent: the first
                              connection gets hello version V (printing the
                              answer), the second a hello of version OWN
                              (the agent's) and, after its welcome, an
                              error {version: W} refusing it; then exit
  welcome PORT V              dial a listening coordinator (run --listen),
                              answer its hello with a welcome of version V;
                              print the answer
  refuse PORT V               dial a listening coordinator, answer its hello
                              with an error {text, version: V}, as a
                              dialling agent of version V does"""
import os, socket, struct, sys, time

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
    if 0x90 <= t <= 0x9f: return uarr(b, i + 1, t & 0x0f)
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
    if t in (0xdc, 0xdd):
        f = ">H" if t == 0xdc else ">I"; w = struct.calcsize(f)
        return uarr(b, i + 1 + w, struct.unpack(f, b[i + 1:i + 1 + w])[0])
    if t == 0xcb: return struct.unpack(">d", b[i + 1:i + 9])[0], i + 9
    raise ValueError("msgpack type 0x%02x" % t)

def umap(b, i, n):
    d = {}
    for _ in range(n):
        k, i = unpack(b, i); v, i = unpack(b, i); d[k] = v
    return d, i

def uarr(b, i, n):
    a = []
    for _ in range(n):
        v, i = unpack(b, i); a.append(v)
    return a, i

class Conn:
    def __init__(self, s):
        self.s, self.buf = s, b""
    def recv(self):
        while True:
            if len(self.buf) >= 4:
                n = struct.unpack(">I", self.buf[:4])[0]
                if len(self.buf) >= 4 + n:
                    m, _ = unpack(self.buf, 4); self.buf = self.buf[4 + n:]; return m
            try:
                d = self.s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                return None
            if not d: return None
            self.buf += d
    def send(self, m):
        p = pack(m); self.s.sendall(struct.pack(">I", len(p)) + p)

def show(m):
    if m is None:
        print("closed")
    else:
        print("got %s text=%s version=%s" % (m.get("type"), m.get("text", "-"),
                                             m.get("version", "-")))
    sys.stdout.flush()

def dial(port):
    # the listener may not be up yet: retry for a few seconds
    for _ in range(100):
        try:
            return Conn(socket.create_connection(("127.0.0.1", port), timeout=10))
        except ConnectionRefusedError:
            time.sleep(0.05)
    sys.exit("cannot connect to 127.0.0.1:%d" % port)

def future_welcome(v):
    # a later version's welcome: renamed keys, new ones, no nonce or mac
    return {"type": "welcome", "version": v, "hostname": "future", "agent_uuid": "x-1",
            "cpus": 4}

role = sys.argv[1]
if role == "agent":
    port_file, answer = sys.argv[2], sys.argv[3]
    v = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0)); ls.listen(8)
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(port_file + ".tmp", port_file)
    while True:
        s, _ = ls.accept(); s.settimeout(10)
        c = Conn(s)
        hello = c.recv()
        print("hello version=%s" % (hello or {}).get("version")); sys.stdout.flush()
        if answer == "welcome":
            c.send(future_welcome(v))
        elif answer == "error":
            c.send({"type": "error", "version": v,
                    "text": "protocol version mismatch: agent speaks %d, coordinator %d"
                            % (v, hello["version"])})
        else:
            c.send({"type": "error", "text": "protocol version mismatch: agent speaks 1, "
                                             "coordinator %d" % hello["version"]})
        while True:
            m = c.recv()
            show(m)
            if m is None: break
        s.close()
elif role == "dial":
    port, v = int(sys.argv[2]), int(sys.argv[3])
    c = dial(port)
    c.send({"type": "hello", "version": v, "cipher_suite": "future"})
    show(c.recv())
    show(c.recv())
elif role == "coordinator":
    port, v = int(sys.argv[2]), int(sys.argv[3])
    ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port)); ls.listen(8); ls.settimeout(30)
    s, _ = ls.accept(); s.settimeout(10)
    c = Conn(s)
    c.send({"type": "hello", "version": v})
    show(c.recv())
    show(c.recv())
    s.close()
    s, _ = ls.accept(); s.settimeout(10)
    c = Conn(s)
    c.send({"type": "hello", "version": int(sys.argv[4]), "nonce": os.urandom(32)})
    w = c.recv()
    print("second: %s version=%s" % (w.get("type"), w.get("version"))); sys.stdout.flush()
    w2 = int(sys.argv[5])
    c.send({"type": "error", "version": w2,
            "text": "protocol version mismatch: coordinator speaks %d, agent %d" % (w2, w["version"])})
    show(c.recv())
    s.close()
elif role == "welcome":
    port, v = int(sys.argv[2]), int(sys.argv[3])
    c = dial(port)
    hello = c.recv()
    print("hello version=%s" % hello.get("version")); sys.stdout.flush()
    c.send(future_welcome(v))
    show(c.recv())
    show(c.recv())
elif role == "refuse":
    port, v = int(sys.argv[2]), int(sys.argv[3])
    c = dial(port)
    hello = c.recv()
    print("hello version=%s" % hello.get("version")); sys.stdout.flush()
    c.send({"type": "error", "version": v,
            "text": "protocol version mismatch: agent speaks %d, coordinator %d" % (v, hello["version"])})
    show(c.recv())
else:
    sys.exit("unknown role " + role)
