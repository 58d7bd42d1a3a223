"""Submissions to nfstorm serve made by hand, as a hostile submitter makes them
(docs/protocol.md, "The pool"): the submitter's own checks are skipped.

usage: pool_craft.py PORT SECRET_FILE CASES.json
CASES.json: a list of {"argv": [...], "plan": "text" or null}, optionally with the submission's
other fields ("command": "run"|"clean", "expect", "min_agents", "expect_timeout_ms", ...).
Prints one JSON line per case: {"error": "...", "exit": N, "stdout": "...", "stderr": "..."}
(what the pool sent back; exit null when the pool sent no exit status)."""
import hashlib, hmac, json, os, socket, struct, sys


def enc(o):
    """msgpack, the few types the protocol uses (always the wide forms)."""
    if isinstance(o, bool):
        return b"\xc3" if o else b"\xc2"
    if isinstance(o, int):
        return b"\xce" + struct.pack(">I", o)
    if isinstance(o, str):
        b = o.encode()
        return b"\xdb" + struct.pack(">I", len(b)) + b
    if isinstance(o, bytes):
        return b"\xc6" + struct.pack(">I", len(o)) + o
    if isinstance(o, list):
        return b"\xdd" + struct.pack(">I", len(o)) + b"".join(enc(x) for x in o)
    if isinstance(o, dict):
        return b"\xdf" + struct.pack(">I", len(o)) + b"".join(enc(k) + enc(v) for k, v in o.items())
    raise TypeError(type(o))


def dec(b, i=0):
    t = b[i]
    if t <= 0x7f:
        return t, i + 1
    if 0x80 <= t <= 0x8f or t in (0xde, 0xdf):
        if t <= 0x8f:
            n, i = t & 15, i + 1
        elif t == 0xde:
            n, i = struct.unpack(">H", b[i + 1:i + 3])[0], i + 3
        else:
            n, i = struct.unpack(">I", b[i + 1:i + 5])[0], i + 5
        d = {}
        for _ in range(n):
            k, i = dec(b, i)
            d[k], i = dec(b, i)
        return d, i
    if 0x90 <= t <= 0x9f:
        n, i, out = t & 15, i + 1, []
        for _ in range(n):
            v, i = dec(b, i)
            out.append(v)
        return out, i
    if 0xa0 <= t <= 0xbf:
        n = t & 31
        return b[i + 1:i + 1 + n].decode("utf-8", "replace"), i + 1 + n
    widths = {0xd9: 1, 0xda: 2, 0xdb: 4, 0xc4: 1, 0xc5: 2, 0xc6: 4}
    if t in widths:
        w = widths[t]
        n = int.from_bytes(b[i + 1:i + 1 + w], "big")
        body = b[i + 1 + w:i + 1 + w + n]
        return (body if t in (0xc4, 0xc5, 0xc6) else body.decode("utf-8", "replace")), i + 1 + w + n
    ints = {0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8}
    if t in ints:
        w = ints[t]
        return int.from_bytes(b[i + 1:i + 1 + w], "big"), i + 1 + w
    if t in (0xc2, 0xc3):
        return t == 0xc3, i + 1
    if t == 0xc0:
        return None, i + 1
    raise ValueError("msgpack type 0x%02x" % t)


def frame(s):
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
        if not c:
            return None
        body += c
    return dec(body)[0]


def send(s, m):
    b = enc(m)
    s.sendall(struct.pack(">I", len(b)) + b)


def submit(port, key, case):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(60)
    hello = frame(s)
    mine = os.urandom(32)
    send(s, {"type": "hello", "version": hello["version"], "nonce": mine})
    frame(s)                                           # welcome (its proof is not our concern here)
    send(s, {"type": "auth", "mac": hmac.new(key, b"nfstorm submitter v1" + hello["nonce"] + mine,
                                             hashlib.sha256).digest()})
    m = {"type": "submit", "argv": case["argv"], "plan": (case.get("plan") or "").encode(),
         "has_plan": case.get("plan") is not None, "want_json": False, "wait": True,
         "expect": 0, "min_agents": 0, "expect_timeout_ms": 10000}
    for k in ("command", "expect", "min_agents", "expect_timeout_ms", "want_json", "wait"):
        if k in case:
            m[k] = case[k]
    send(s, m)
    out = {"error": "", "exit": None, "stdout": "", "stderr": ""}
    while True:
        try:
            f = frame(s)
        except socket.timeout:
            out["error"] += "(timeout)"
            break
        if f is None:
            break
        if f.get("type") == "error":
            out["error"] += f.get("text", "")
        elif f.get("type") == "exit":
            out["exit"] = f.get("status")
            break
        elif f.get("type") == "output":
            k = {1: "stdout", 2: "stderr"}.get(f.get("stream"))
            if k:
                out[k] += f.get("data", b"").decode("utf-8", "replace")
    s.close()
    return out


port, key = int(sys.argv[1]), open(sys.argv[2], "rb").read().rstrip(b"\r\n")
for case in json.load(open(sys.argv[3])):
    print(json.dumps(submit(port, key, case)), flush=True)
