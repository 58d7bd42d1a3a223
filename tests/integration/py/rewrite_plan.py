"""A TCP proxy that rewrites one unsigned field of the plan a coordinator
sends, to play a coordinator that skips the plan checks.
usage: rewrite_plan.py LISTEN_PORT_FILE TARGET_PORT KEY NEW_VALUE [TYPE]
The first frame holding "type": "plan" (or TYPE, e.g. start) gets the value after every msgpack
string KEY (a positive fixint or uint8/16/32/64) replaced by NEW_VALUE as a
uint64, and its 4-byte big-endian length fixed.  KEY "HOLD" rewrites
nothing: the frame is held NEW_VALUE ms, then sent as it was (a message
that arrives late).  Serves one connection."""
import socket, struct, sys, threading, time

port_file, target, key, new = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode(), int(sys.argv[4])
mtype = sys.argv[5].encode() if len(sys.argv) > 5 else b"plan"
mtag = b"\xa4type" + bytes([0xa0 | len(mtype)]) + mtype
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
open(port_file, "w").write(str(srv.getsockname()[1]))
c, _ = srv.accept()
s = socket.create_connection(("127.0.0.1", target))
assert len(key) < 32
kbytes = bytes([0xa0 | len(key)]) + key
UINT = {0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8}

def rewrite(payload):
    out, i, n = bytearray(), 0, 0
    while True:
        j = payload.find(kbytes, i)
        if j < 0:
            break
        v = j + len(kbytes)
        b = payload[v]
        width = 0 if b < 0x80 else UINT.get(b)
        if width is None:
            out += payload[i:v]; i = v; continue
        out += payload[i:v] + b"\xcf" + struct.pack(">Q", new)
        i = v + 1 + width
        n += 1
    out += payload[i:]
    return bytes(out), n

def pump(a, b, rewrite_plan):
    buf, done = b"", not rewrite_plan
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            if done:
                b.sendall(d); continue
            buf += d
            while len(buf) >= 4:
                ln = struct.unpack(">I", buf[:4])[0]
                if len(buf) < 4 + ln:
                    break
                frame, buf = buf[4:4 + ln], buf[4 + ln:]
                if not done and mtag in frame and key == b"HOLD":
                    time.sleep(new / 1000.0)
                    sys.stderr.write("rewrite_plan: %s held %d ms\n" % (mtype.decode(), new))
                    done = True
                elif not done and mtag in frame:
                    frame, count = rewrite(frame)
                    sys.stderr.write("rewrite_plan: %d value(s) of %s set to %d\n" % (count, key.decode(), new))
                    done = True
                b.sendall(struct.pack(">I", len(frame)) + frame)
            if done and buf:
                b.sendall(buf); buf = b""
    except OSError:
        pass
    for x in (a, b):
        try:
            x.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

t = threading.Thread(target=pump, args=(s, c, False)); t.start()
pump(c, s, True)
t.join()
