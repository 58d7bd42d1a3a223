#!/usr/bin/env bash
# nfstorm-test: serial (a network namespace, a veth and tc qdiscs)
# t1434: an nfs op's time split into what it truly is (issue 21, item 7),
# over a veth shaped to 100 Mbit/s with tc tbf (netns_nfs.sh).
#  - 1m writes at iodepth 4 wait behind a full socket buffer before their
#    last byte is handed to the socket: that wait is "queued before send",
#    not the client's time (main said "1.13s in the client" at 1% CPU).
#  - an 8m read is 8 parallel 1m READs (rsize 1m): its time is its slowest
#    part's round trip, longer than the typical READ's, not the median RPC.
# For both: the split's sums add up exactly (lat = rtt + queued + late +
# client), its latency sum is the op histogram's, every op was timed; the
# text line's parts add up; the HTML says "the difference is the client's
# time" for the reads (it is) and not for the writes (it is the wait before
# send, and it says so).
source "$(dirname "$0")/lib.sh"
source "$ROOT/tests/nfs_server.sh"
source "$(dirname "$0")/netns_nfs.sh"
trap 'netns_nfs_down; cleanup' EXIT
netns_nfs_up 100mbit

timeout 90 "$NFSTORM" run --agents "$NETNS_AGENT" --quiet --json "$T/r.json" --html "$T/r.html" \
  --name=w --ioengine=nfs "--nfs_url=$NFS_URL3" --filename=s.dat --rw=write --bs=1m --size=12m --iodepth=4 \
  --name=r --stonewall --ioengine=nfs "--nfs_url=$NFS_URL3" --filename=s.dat --rw=read --bs=8m \
  --size=8m --iodepth=1 --loops=2 >"$T/r.txt" 2>&1 || fail "run fails: $(tail -n 3 "$T/r.txt")"
py "$T/r.json" "$T/r.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
units = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
def ns(v):
    m = re.fullmatch(r"([\d.]+)(ns|us|ms|s)", v)
    return float(m.group(1)) * units[m.group(2)]
for ph, op in zip(d["phases"], ("write", "read")):
    sp = ph["nfs"]["split"][op]; o = ph["ops"][op]
    assert sp["ops"] == o["ops"] and o["errors"] == 0, (op, sp["ops"], o["ops"])
    assert sp["lat_ns"] == o["lat_ns"]["hist"]["sum"], (op, sp["lat_ns"], o["lat_ns"]["hist"]["sum"])
    assert sp["rtt_ns"] + sp["queued_ns"] + sp["late_ns"] + sp["client_ns"] == sp["lat_ns"], sp
    assert sp["rtt_ns"] > 0 and sp["late_ns"] == 0, sp
    assert ph["agents"][0]["nfs"]["split"] == ph["nfs"]["split"], "the fleet's split is not its one agent's"
    # the text line: mean = rtt + queued + client, to the printed precision
    m = re.search(r"^  %s: op mean (\S+) = slowest RPC's round trip (\S+) \(server\+network\) \+ "
                  r"queued before send (\S+) \+ client (\S+) \((\d+) ops\)$" % op, text, re.M)
    assert m, "no split line for %s" % op
    mean, rtt, q, cl = (ns(m.group(i)) for i in range(1, 5))
    assert abs(mean - (rtt + q + cl)) <= 0.01 * mean, m.group(0)
    assert int(m.group(5)) == sp["ops"], m.group(0)
    print("%s: %s" % (op, m.group(0).strip()))
w = d["phases"][0]["nfs"]["split"]["write"]
assert w["queued_ns"] > w["client_ns"], "writes behind a full socket buffer: queued %d, client %d" % (
    w["queued_ns"], w["client_ns"])
r = d["phases"][1]["nfs"]; rs = r["split"]["read"]
# the slowest of 8 parallel parts takes longer than the typical READ
assert rs["mean"]["rtt_ns"] > r["rpc"]["READ"]["rtt_ns"]["p50"], (rs["mean"], r["rpc"]["READ"]["rtt_ns"]["p50"])
assert r["rpc"]["READ"]["calls"] >= 8 * rs["ops"], r["rpc"]["READ"]["calls"]
assert "in the client" not in text, "the old op p50 - rpc p50 line is still printed"
PY
# per phase: the writes' difference is the wait before send, the reads' the
# client's own (1m READ requests are small: nothing waits to be sent)
py "$T/r.html" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
notes = re.findall(r'<table class="nfs-split">.*?</table>\n<p class="note">(.*?)</p>', html, re.S)
assert len(notes) == 2, "%d split tables, want 2" % len(notes)
w, r = notes
assert "client's time" not in w.replace("not the client's time", ""), "write: " + w
assert 'data-split="queued"' in w, "write: " + w
assert "is the client's time" in r and "data-split" not in r, "read: " + r
PY
# the same from the saved JSON and the journal
for src in r.json r.json.journal; do
  timeout 30 "$NFSTORM" report "$T/$src" --json "$T/x.json" >"$T/x.txt" 2>"$T/x.err" || fail "report $src: $(head -c 300 "$T/x.err")"
  cmp -s "$T/r.json" "$T/x.json" || fail "JSON from $src differs: $(diff <(python3 -m json.tool "$T/r.json") <(python3 -m json.tool "$T/x.json") | head -4)"
done
echo "t1434: PASS"
