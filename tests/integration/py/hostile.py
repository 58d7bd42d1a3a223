"""Send hostile bytes to an agent: garbage, a huge declared length, a
truncated frame, a silent client, a frame of the right shape with a bogus
message.  usage: hostile.py PORT"""
import os, socket, sys, time
port = int(sys.argv[1])

def send(b, wait=0.3):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b)
    time.sleep(wait)
    s.close()

send(os.urandom(4096))
send(b"\xff\xff\xff\xff" + os.urandom(64))        # 4 GiB declared
send(b"\x00\x00\x00\x10\x81")                    # truncated
send(b"\x00\x00\x00\x05\x81\xa4type\xc0")        # type is nil
send(b"\x00\x00\x00\x03\xdd\xff\xff")            # array32 claiming 4G elements
s = socket.create_connection(("127.0.0.1", port)); time.sleep(1.0); s.close()   # silent
print("sent 6 hostile inputs")
