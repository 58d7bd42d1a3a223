#!/usr/bin/env python3
"""A tiny TCP relay standing in for efs-utils' efs-proxy in tests.

Usage: tcp_relay.py LISTEN_HOST UPSTREAM_HOST UPSTREAM_PORT NAME
Listens on LISTEN_HOST:0 (the kernel picks the port), prints "port N" on
stdout once it listens, and for each connection it accepts opens one to
UPSTREAM_HOST:UPSTREAM_PORT and copies bytes both ways (a thread per
direction) until either side closes.  NAME becomes the process's name
(/proc/self/comm), so the agent's proxy finder can be checked by name.
Runs until killed.
"""
import socket
import sys
import threading


def pump(src, dst):
    try:
        while True:
            data = src.recv(1 << 16)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(client, upstream):
    try:
        up = socket.create_connection(upstream)
    except OSError:
        client.close()
        return
    threading.Thread(target=pump, args=(client, up), daemon=True).start()
    threading.Thread(target=pump, args=(up, client), daemon=True).start()


def main():
    listen_host, up_host, up_port, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    with open("/proc/self/comm", "w") as f:
        f.write(name[:15])
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((listen_host, 0))
    srv.listen(16)
    print("port %d" % srv.getsockname()[1], flush=True)
    while True:
        client, _ = srv.accept()
        serve(client, (up_host, up_port))


if __name__ == "__main__":
    main()
