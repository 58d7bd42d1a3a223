"""A TCP server on 127.0.0.1 that is not an nfstorm agent, for the
coordinator's tests.  usage: stranger_server.py PORT_FILE KIND
  http   answers whatever it gets with an HTTP 400 and closes
  ssh    greets with an SSH banner and waits
  huge   answers with a frame header declaring 2 GiB
  text   answers with a small frame that is not msgpack
Serves connections until killed; the port goes to PORT_FILE."""
import os, socket, sys, threading, time
port_file, kind = sys.argv[1], sys.argv[2]
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(4)
open(port_file + ".tmp", "w").write(str(srv.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)

def serve(c):
    try:
        if kind == "ssh":
            c.sendall(b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n")
            time.sleep(20)
            return
        c.recv(4096)
        if kind == "http":
            c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        elif kind == "huge":
            c.sendall(b"\x7f\xff\xff\xff" + b"\x00" * 64)
            time.sleep(20)
        elif kind == "text":
            c.sendall(b"\x00\x00\x00\x05hello")
            time.sleep(20)
    except OSError:
        pass
    finally:
        c.close()

while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
