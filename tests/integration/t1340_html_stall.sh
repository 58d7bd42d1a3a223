#!/usr/bin/env bash
# t1340: the run HTML shades a server stall on every time chart.  Two
# agents read through the nfs engine while ganesha is paused (SIGSTOP) for
# 2.5 s; the intervals the result counts as stalled (no op completed while
# ops were outstanding longer than an interval) are exactly the "stall"
# bands of the throughput, bandwidth, latency and fairness charts, with a
# legend entry; the latency chart is on a log scale (decade ticks, powers
# of ten apart) and leaves the stalled intervals as a gap.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../nfs_server.sh"
command -v ganesha.nfsd >/dev/null || skip "nfs-ganesha is not installed"
E=$T/export; mkdir -p "$E"; chmod 777 "$E"
nfs_server_start "$E" || skip "cannot start the NFS server here"
trap 'nfs_server_stop; cleanup' EXIT
"$NFSTORM" run --local 2 --quiet --json "$T/r.json" --html "$T/r.html" --name=st --ioengine=nfs \
  "--nfs_url=$NFS_URL3" --filename=st.dat --rw=randread --bs=4k --size=4m --runtime=7 --time_based \
  >"$T/o" 2>&1 &
c=$!
wait_intervals "$T/r.json.journal" 4 || fail "the phase did not get 2 s in: $(tail -n2 "$T/o")"
kill -STOP "$NFS_PID"; sleep 2.5; kill -CONT "$NFS_PID"
wait $c || fail "run failed: $(tail -n2 "$T/o")"
grep -q "^stall: intervals .*server stalled" "$T/o" || fail "the text report saw no stall: $(cat "$T/o")"
# the report re-rendered from the JSON shades the same
"$NFSTORM" report "$T/r.json" --html "$T/re.html" >/dev/null || fail "report --html"
py "$T/r.json" "$T/r.html" "$T/re.html" "$ROOT/tests/integration/py" <<'PY'
import json, math, sys
sys.path.insert(0, sys.argv[4])
import run_html as h
import iv_agents
ph = json.load(open(sys.argv[1]))["phases"][0]
ilen = ph["interval_ms"] * 1e6
want = []
for k, it in enumerate(ph["intervals"]):
    done_any = sum(o["ops"] for o in it["ops"].values())
    stalled = [a for a in iv_agents.agents_n(it, len(ph["agents"])) if a.get("inflight", 0) and a.get("oldest_ns", 0) > ilen
               and sum(o["ops"] for o in a["ops"].values()) == 0]
    if stalled and done_any == 0:
        want.append((k * ph["interval_ms"] / 1000, (k + 1) * ph["interval_ms"] / 1000))
want = h.intervals(want)
assert want, "the JSON shows no fleet-stalled interval: the pause missed the run?"
for path in sys.argv[2:4]:
    html = open(path).read()
    for view in ("throughput", "bandwidth", "latency", "fairness"):
        svg = h.views(html, view)
        assert len(svg) == 1, "%s: %d %s charts" % (path, len(svg), view)
        got = [(a, b) for kind, a, b, _ in h.bands(svg[0]) if kind == "stall"]
        assert got == want, "%s %s: stall bands %s, want %s" % (path, view, got, want)
        assert "server stalled" in h.legend(svg[0]), "%s: no legend entry for the stall" % view
    lat = h.views(html, "latency")[0]
    ticks = [h.ns_value(t) for t in h.ylabels(lat)]
    decades = [t for t in ticks if abs(round(math.log10(t)) - math.log10(t)) < 1e-9]
    assert len(decades) >= 3, "latency ticks are not decades: %s" % h.ylabels(lat)
    assert all(b / a == 10 for a, b in zip(decades, decades[1:])), decades
    # p50..p99.9 each break at the stall: more polylines than series
    assert len(h.polylines(lat)) >= 8, "latency has no gap at the stall: %d polylines" % len(h.polylines(lat))
print("stall bands %s on 4 charts, latency decades %s" % (want, h.ylabels(lat)))
PY
echo "stall shaded"
