"""A TCP proxy that records what the client sends (for the replay test).
usage: proxy.py LISTEN_PORT_FILE TARGET_PORT RECORD_FILE
Serves one connection, then exits."""
import socket, sys, threading

port_file, target, record = sys.argv[1], int(sys.argv[2]), sys.argv[3]
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
open(port_file, "w").write(str(srv.getsockname()[1]))
c, _ = srv.accept()
s = socket.create_connection(("127.0.0.1", target))
rec = open(record, "wb")

def pump(a, b, out):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            if out:
                out.write(d); out.flush()
            b.sendall(d)
    except OSError:
        pass
    for x in (a, b):
        try:
            x.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

t = threading.Thread(target=pump, args=(s, c, None)); t.start()
pump(c, s, rec)
t.join()
