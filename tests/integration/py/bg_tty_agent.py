"""bg_tty_agent.py AGENT ARGS...: start the agent as a background job of a terminal session whose tty
has TOSTOP set (as `stty tostop` in an interactive shell), with its log
(stderr) on that terminal.  Prints the agent's pid and 'listening on' line, then
keeps the session (and its terminal) alive until killed."""
import os, pty, sys, termios, signal
master, slave = pty.openpty()
pid = os.fork()
if pid == 0:
    os.setsid()
    os.close(master)
    import fcntl
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    attrs = termios.tcgetattr(slave)
    attrs[3] |= termios.TOSTOP
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    r, w = os.pipe()
    apid = os.fork()
    if apid == 0:
        os.setpgid(0, 0)            # a background job of this session
        os.dup2(slave, 2)
        os.dup2(w, 1)
        os.execv(sys.argv[1], sys.argv[1:])
    os.close(w)
    line = os.read(r, 200).decode()
    print(apid, line.strip(), flush=True)
    signal.pause()
    os._exit(0)
os.close(slave)
# drain the terminal so output never blocks on a full buffer
while True:
    try:
        if not os.read(master, 4096):
            break
    except OSError:
        break
