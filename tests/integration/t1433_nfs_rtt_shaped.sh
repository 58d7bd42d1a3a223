#!/usr/bin/env bash
# nfstorm-test: serial (a network namespace, a veth and tc qdiscs)
# t1433: NFS RPC round trips over a real link, and a LOOKUP of an absent
# name is not a failure (issue 21, item 7).  The agent runs in a network
# namespace whose veth to ganesha is shaped with tc tbf (netns_nfs.sh).
# An RTT runs from the request's last byte handed to the socket to its
# reply: it can never be shorter than a bare TCP round trip over the same
# link, which we measure here (connect() from the namespace to ganesha's
# port: SYN and SYN-ACK, no user space; half of it is the floor).  libnfs's observer stamped "sent"
# after send() returned, and a send() that runs the receiver's stack
# returned with the reply already in: GETATTRs of 2-5 us.  Every setup
# procedure's p50 and min (over 4 connections, nconnect=4: each mounts),
# and WRITE's min, must be at least that floor.
# The new file's LOOKUP is answered NOENT before its CREATE: the headline,
# JSON and HTML count 0 failed RPCs and name it apart.
source "$(dirname "$0")/lib.sh"
source "$ROOT/tests/nfs_server.sh"
source "$(dirname "$0")/netns_nfs.sh"
trap 'netns_nfs_down; cleanup' EXIT
netns_nfs_up 100mbit

# the least of 30 connects, before and after the run (a loaded machine
# stretches some; the least is the link's), halved for safety: the bug's
# round trips were a fifth of it
tcp_rtt() {
  ip netns exec "$NETNS" python3 - "$NETNS_HOST" "$NFS_PORT" <<'PY'
import socket, sys, time
ts = []
for _ in range(30):
    s = socket.socket()
    t = time.monotonic_ns(); s.connect((sys.argv[1], int(sys.argv[2]))); ts.append(time.monotonic_ns() - t)
    s.close()
print(min(ts))
PY
}
before=$(tcp_rtt) || fail "cannot measure the TCP round trip from the namespace"

timeout 60 "$NFSTORM" run --agents "$NETNS_AGENT" --quiet --json "$T/r.json" --html "$T/r.html" \
  --name=w --ioengine=nfs "--nfs_url=$NFS_URL3" --filename=new.dat --rw=write --bs=256k --size=4m \
  --iodepth=4 --nconnect=4 >"$T/r.txt" 2>&1 || fail "run fails: $(tail -n 3 "$T/r.txt")"
after=$(tcp_rtt) || fail "cannot measure the TCP round trip from the namespace"
floor=$(( (before < after ? before : after) / 2 ))
[ "$floor" -gt 0 ] || fail "floor $floor"
py "$T/r.json" "$T/r.txt" "$floor" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read(); floor = int(sys.argv[3])
nfs = d["phases"][0]["nfs"]; rpc = nfs["rpc"]
setup = [p for p in ("NULL", "MOUNT", "GETATTR", "LOOKUP", "FSINFO", "FSSTAT", "ACCESS") if p in rpc]
assert {"GETATTR", "LOOKUP", "MOUNT"} <= set(setup), sorted(rpc)
for p in setup:
    r = rpc[p]["rtt_ns"]
    assert r["min"] >= floor and r["p50"] >= floor, \
        "%s: rtt min %d p50 %d ns, below half a bare TCP round trip (%d ns) over the same link" % (p, r["min"], r["p50"], floor)
w = rpc["WRITE"]["rtt_ns"]
assert w["min"] >= floor, "WRITE rtt min %d ns < %d ns" % (w["min"], floor)
# the new file: LOOKUP answered NOENT, then CREATE; an answer, not a failure
assert rpc["LOOKUP"]["status"].get("NFS3ERR_NOENT", 0) >= 1 and "CREATE" in rpc, rpc["LOOKUP"]
assert nfs["failed"] == 0 and nfs["expected_errors"] == rpc["LOOKUP"]["status"]["NFS3ERR_NOENT"], \
    (nfs["failed"], nfs["expected_errors"])
m = re.search(r"^nfs: (\d+) RPCs, (\d+) failed, .*; (\d+) LOOKUPs? answered NOENT", text, re.M)
assert m and m.group(2) == "0" and int(m.group(3)) == nfs["expected_errors"], "headline: %s" % \
    [l for l in text.splitlines() if l.startswith("nfs:")]
assert "nfs errors:" not in text, "an expected NOENT listed as an error"
# intervals keep no statuses: they leave "failed" out rather than count the NOENT
bad = [(k, iv["nfs"]["failed"]) for k, iv in enumerate(d["phases"][0]["intervals"])
       if iv.get("nfs", {}).get("failed", 0)]
assert not bad, "intervals count failed RPCs: %s" % bad
print("floor %d ns; p50: %s" % (floor, ", ".join("%s %d" % (p, rpc[p]["rtt_ns"]["p50"]) for p in setup + ["WRITE"])))
PY
[ $? -eq 0 ] || fail "see above"
grep -q 'data-failed="0">[0-9]* RPCs, 0 failed' "$T/r.html" || fail "the HTML headline counts the NOENT as failed"
echo "t1433: PASS"
