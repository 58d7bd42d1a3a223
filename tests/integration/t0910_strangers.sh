#!/usr/bin/env bash
# Strangers cost little (issue 15, item 5): before authentication a frame
# may declare at most 4 KiB (a 4 MiB frame of nils is refused at its header,
# before its bytes are read); idle strangers, more than the pending cap and
# all from the coordinator's own address, do not lock the coordinator out
# (the oldest is evicted); a flood of 4 MiB frames during a run neither
# grows the agent's memory nor stops the run.  And the busy text names the
# agent's index in the run it serves (issue 15, item 7).
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
head -c 32 /dev/urandom | base64 >"$T/secret"; chmod 600 "$T/secret"
AGENT_AUTH="--secret-file $T/secret" start_agent "$D"
alog=$(ls "$T"/agent.*.log | grep -v out | head -1)
port=${AGENT_ADDR##*:}
R() { timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --secret-file "$T/secret" --quiet "$@"; }

# 1. a 4 MiB frame of nils: the agent hangs up on the header alone
python3 - "$port" <<'PY' || fail "4 MiB pre-auth frame not refused at its header"
import socket, struct, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(struct.pack(">I", 4 << 20) + b"\xc0" * 100)
s.settimeout(3)
t = time.time()
try:
    d = s.recv(100)
except ConnectionResetError:
    d = b""
except socket.timeout:
    sys.exit("agent still reading the 4 MiB frame after 3 s")
assert d == b"", d
print("closed after %.3f s" % (time.time() - t))
PY
grep -q "frame larger than the limit before authentication" "$alog" || fail "no log line: $(tail -n3 "$alog")"

# 2. 32 idle strangers from 127.0.0.1 (the pending cap is 16, 4 per address)
python3 - "$port" >"$T/idle.out" <<'PY' &
import socket, sys, time
s = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(32)]
print("connected", len(s), flush=True)
time.sleep(20)
PY
PIDS+=($!)
wait_grep "$T/idle.out" '^connected 32$' 10 || fail "the 32 strangers did not connect: $(cat "$T/idle.out")"
R --json "$T/r1.json" --name=ok --rw=write --bs=4k --size=64k --filename="$D/ok" >"$T/o1" 2>&1 \
  || fail "32 idle strangers lock out the coordinator: $(tail -n1 "$T/o1")"
py "$T/r1.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]["ops"] == 16
PY
grep -q "evicted 127.0.0.1:[0-9]*: [0-9]* connections from 127.0.0.1 waiting" "$alog" || fail "no eviction logged"

# 3. during a run: 16 strangers each start a 4 MiB frame (an array of nils), twice a
#    second; the run's heartbeats go on (the coordinator would mark an agent
#    silent for 2 s lost) and the agent's peak memory stays put
hwm0=$(awk '/VmHWM/ {print $2}' /proc/$AGENT_PID/status)
R --json "$T/r2.json" --agent-timeout 2s --name=t --ioengine=null --rw=read --bs=4k --size=1m --runtime=4 \
  --time_based >"$T/o2" 2>&1 &
run=$!
wait_intervals "$T/r2.json.journal" 1 || fail "the run did not start: $(tail -n2 "$T/o2")"
python3 - "$port" <<'PY' || fail "flood client failed"
import socket, struct, sys, time
end = time.time() + 3
n = (4 << 20) - 5        # an array of ~4M nils: 4 MiB on the wire
chunk = struct.pack(">I", 4 << 20) + b"\xdd" + struct.pack(">I", n) + b"\xc0" * n
n = 0
while time.time() < end:
    for _ in range(16):
        try:
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            s.settimeout(1)
            s.sendall(chunk)
        except OSError:
            n += 1          # refused at the header: the send is cut short
        finally:
            s.close()
    time.sleep(0.5)
print("cut short:", n)
PY
wait $run || fail "a run under a flood of 4 MiB stranger frames failed: $(tail -n2 "$T/o2")"
hwm1=$(awk '/VmHWM/ {print $2}' /proc/$AGENT_PID/status)
echo "agent peak RSS under the flood: +$((hwm1 - hwm0)) KiB"
# under ASan freed memory waits in its quarantine: RSS says nothing there
ldd "$AGENT" | grep -q libasan || [ $((hwm1 - hwm0)) -lt 32768 ] || fail "agent peak RSS grew by $(( (hwm1 - hwm0) / 1024 )) MiB under the flood"
py "$T/r2.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
assert p["ops"]["read"]["ops"] > 0, p["ops"]
assert len(p["intervals"]) >= 3, "%d intervals in a 4 s run" % len(p["intervals"])
PY

# 4. busy: "agent N (HOST): busy: serving coordinator ADDR"
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --secret-file "$T/secret" --name=long --ioengine=null \
  --rw=read --bs=4k --size=1m --runtime=6 --time_based >"$T/o3" 2>&1 &
first=$!
wait_grep "$T/o3" "phase 1/1 long: started on" || fail "the first run did not start: $(tail -n2 "$T/o3")"
R --name=x --rw=read --bs=4k --size=64k >"$T/o4" 2>&1 && fail "second coordinator served during a run"
wait $first || fail "first run failed: $(tail -n2 "$T/o3")"
grep -q "busy: serving coordinator 127\.0\.0\.1:" "$T/o4" || fail "busy not reported: $(cat "$T/o4")"
grep -q "to 127.0.0.1:[0-9]*: agent 0 ($(hostname)): busy: serving coordinator 127\.0\.0\.1:[0-9]" "$alog" \
  || fail "busy text without the agent's index: $(grep busy "$alog")"
kill -0 "$AGENT_PID" || fail "agent died"
echo "strangers bounded: 4 KiB before auth, oldest evicted, flood harmless; busy names agent 0"
