"""Replay recorded client bytes to the agent; print what it answers.
usage: replay.py PORT RECORD_FILE"""
import socket, sys, time
port, data = int(sys.argv[1]), open(sys.argv[2], "rb").read()
s = socket.create_connection(("127.0.0.1", port))
s.settimeout(5)
# the hello frame first, then the rest after the agent's welcome
n = int.from_bytes(data[:4], "big")
s.sendall(data[:4 + n])
time.sleep(0.3)
s.sendall(data[4 + n:])
got = b""
try:
    while True:
        d = s.recv(65536)
        if not d:
            break
        got += d
except (socket.timeout, ConnectionResetError):
    pass
sys.stdout.write(got.decode("latin-1"))
