#!/usr/bin/env bash
# nfstorm-test: serial (a network namespace, a veth and tc qdiscs)
# t1435: a slow but healthy server is not a stalled one (issue 21, item 6).
# Over a veth shaped to 100 Mbit/s (tc tbf, netns_nfs.sh) four threads read
# 8 MiB ops: they share ~11 MiB/s, so each op takes ~3 s and whole 1 s
# intervals pass with no op completed while the oldest is 2 s old.  main
# called that "server stalled, no op completed on any agent"; a stall is no
# op completing for much longer than the ops in flight should take at the
# recent pace, so no interval of this run is stalled: not in the text, the
# JSON intervals, the time series or the HTML.  Then a phase whose ops
# outlast it (runtime=1 against ~3 s ops) says its sample is about one op
# per thread (text, JSON thin_sample, HTML), and the first phase does not.
source "$(dirname "$0")/lib.sh"
source "$ROOT/tests/nfs_server.sh"
source "$(dirname "$0")/netns_nfs.sh"
trap 'netns_nfs_down; cleanup' EXIT
netns_nfs_up 100mbit

timeout 90 "$NFSTORM" run --agents "$NETNS_AGENT" --quiet --json "$T/r.json" --html "$T/r.html" \
  --timeseries "$T/r.ts" \
  --name=lay --ioengine=nfs "--nfs_url=$NFS_URL3" --filename=big.dat --rw=write --bs=1m --size=8m \
  --name=slow --stonewall --ioengine=nfs "--nfs_url=$NFS_URL3" --filename=big.dat --rw=read --bs=8m \
  --size=8m --numjobs=4 --runtime=7 --time_based \
  --name=thin --stonewall --ioengine=nfs "--nfs_url=$NFS_URL3" --filename=big.dat --rw=read --bs=8m \
  --size=8m --numjobs=4 --runtime=1 --time_based >"$T/r.txt" 2>&1 || fail "run fails: $(tail -n 3 "$T/r.txt")"
grep -q "^stall:" "$T/r.txt" && fail "a slow, healthy server called stalled: $(grep '^stall:' "$T/r.txt")"
grep -q 'data-band="stall"\|data-band="agent-stall"' "$T/r.html" && fail "the HTML shades a stall"
py "$T/r.json" "$T/r.txt" "$T/r.ts" <<'PY'
import json, re, sys
import iv_agents
d = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
ts = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
slow, thin = d["phases"][1], d["phases"][2]
ilen = slow["interval_ms"] * 1e6
# the situation main misjudged: an interval with no op done while ops older
# than an interval were out
quiet = [k for k, it in enumerate(slow["intervals"])
         if sum(o["ops"] for o in it["ops"].values()) == 0 and
         any(a.get("inflight", 0) and a.get("oldest_ns", 0) > ilen for a in iv_agents.agents_n(it, 1))]
assert quiet, "no interval without completions and an op older than an interval: the test cannot see"
lat = slow["ops"]["read"]["lat_ns"]["mean"]
assert lat > 2 * ilen, "ops of %.1f s: not slow enough to test" % (lat / 1e9)
assert slow["ops"]["read"]["ops"] >= 8 and slow["ops"]["read"]["errors"] == 0, slow["ops"]["read"]
stalled = [l for l in ts if l.get("stalled_agents")]
assert not stalled, "time series says stalled: %s" % stalled[:2]
# a sample of one op per thread is said, only where it is
assert "thin_sample" not in slow, slow.get("thin_sample")
t = thin.get("thin_sample")
assert t and t["threads"] == 4 and t["ops"] == thin["ops"]["read"]["ops"] <= 8, t
m = re.findall(r"^sample: ops take \S+ on average in a \S+ phase: about one op per thread \((\d+) ops from (\d+) threads\)", text, re.M)
assert m == [(str(t["ops"]), "4")], m
print("quiet intervals %s with ops of %.1f s: no stall; thin phase: %s" % (quiet, lat / 1e9, t))
PY
grep -q 'data-thin-sample=' "$T/r.html" || fail "the HTML does not say the thin phase's sample is one op per thread"
echo "t1435: PASS"
