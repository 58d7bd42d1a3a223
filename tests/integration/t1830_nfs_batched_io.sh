#!/usr/bin/env bash
# t1830: with the project's libnfs (scripts/libnfs-batch-io.patch) the nfs
# engine's requests leave in batches and its replies are read a block at a
# time.  Traced with strace on a real agent against ganesha (NFSv3), a 4k
# randread job at iodepth=16 of 2000 ops:
# - the first 16 requests, queued before the first reap, leave in one
#   sendmsg() (>= 16 READ calls' bytes in one call; one send() per request
#   without the patch);
# - fewer than 1.5 recv() per op over the whole run (a record mark and a
#   body per reply, two at least, without it);
# - every op done, none failed.
# nfstorm-test: serial (strace slows the agent; timing of the batches)
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
command -v strace >/dev/null 2>&1 || skip "strace is not installed"
grep -q LIBNFS_RPC_BATCH_IO "$ROOT/deps/libnfs/include/nfsc/libnfs-raw.h" 2>/dev/null \
  || fail "deps/libnfs lacks scripts/libnfs-batch-io.patch: run scripts/build-libnfs.sh, then make"
source "$ROOT/tests/nfs_server.sh"
STRACE_PID=""
trap '[ -n "$STRACE_PID" ] && kill "$STRACE_PID" 2>/dev/null; nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export"
nfs_server_start "$T/export" || fail "NFS server did not start"
start_agent "$T" --allow-nfs "$NFS_URL3"

timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=lay --ioengine=nfs "--nfs_url=$NFS_URL3" \
  --filename=f --rw=write --bs=1m --size=8m >"$T/out" 2>&1 || fail "layout: $(tail -n 3 "$T/out")"

strace -f -qq -e trace=sendto,sendmsg,recvfrom -o "$T/trace" -p "$AGENT_PID" 2>"$T/strace.err" &
STRACE_PID=$!
# attached when the agent's main thread names a tracer
for _ in $(seq 100); do
  [ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$AGENT_PID/status")" != 0 ] && break
  sleep 0.05
done
[ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$AGENT_PID/status")" != 0 ] || fail "strace did not attach: $(cat "$T/strace.err")"

timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/r.json" --name=rd --ioengine=nfs \
  "--nfs_url=$NFS_URL3" --filename=f --rw=randread --bs=4k --size=8m --iodepth=16 --number_ios=2000 \
  >"$T/out" 2>&1 || fail "randread: $(tail -n 3 "$T/out")"
kill "$STRACE_PID"; wait "$STRACE_PID" 2>/dev/null; STRACE_PID=""

py "$T/r.json" "$T/trace" <<'PY'
import json, re, sys
o = json.load(open(sys.argv[1]))["phases"][0]["ops"]["read"]
assert o["ops"] == 2000 and o["errors"] == 0, "ops %d errors %d, want 2000 and 0" % (o["ops"], o["errors"])
sends, recvs = [], 0
for line in open(sys.argv[2]):
    m = re.search(r"\b(sendto|sendmsg|recvfrom)\(.*= (-?\d+)", line)
    if not m:
        continue
    if m.group(1) == "recvfrom":
        recvs += 1
    else:
        sends.append(int(m.group(2)))
# a 4k NFSv3 READ call is 100 bytes or more with its record mark (112
# here); one call alone, the largest any unbatched send carries, is far less
big = max(sends or [0])
assert big >= 16 * 90, "largest send %d bytes: the first 16 requests did not leave together" % big
per_op = recvs / 2000.0
assert per_op < 1.5, "%.2f recv() per op (%d), want < 1.5: replies not read a block at a time" % (per_op, recvs)
print("largest send %d bytes, %d sends, %.2f recv per op" % (big, len(sends), per_op))
PY
echo "t1830: PASS"
