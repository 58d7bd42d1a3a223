#!/usr/bin/env bash
# t1341: an agent killed (-9) mid-run is marked in the run HTML: the agent
# table says "lost at N s" (N the JSON's lost_at_s), every time chart has a
# "lost" band for it (data-id its id) from the end of the last interval it
# sent data for to the end of the phase saying "agent 1 lost at N s", its
# lines are dotted and named "(lost)", and its bar in "IOPS per agent" is marked.  The others are
# not marked.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
addrs=(); pids=()
for i in 0 1 2; do start_agent "$D"; addrs+=("$AGENT_ADDR"); pids+=("$AGENT_PID"); done
list=$(IFS=,; echo "${addrs[*]}")
timeout 60 "$NFSTORM" run --agents "$list" --quiet --agent-timeout 3s --json "$T/r.json" --html "$T/r.html" \
  --name=k --rw=randwrite --bs=4k --size=8m --runtime=5 --time_based >"$T/o" 2>&1 &
cpid=$!
wait_intervals "$T/r.json.journal" 6 || fail "no 2 intervals of the 3 agents: $(tail -n2 "$T/o")"
kill -9 "${pids[1]}"; wait "${pids[1]}" 2>/dev/null
wait $cpid; rc=$?
[ $rc -eq 3 ] || fail "exit status $rc, want 3 (partial): $(tail -n2 "$T/o")"
"$NFSTORM" report "$T/r.json" --html "$T/re.html" >/dev/null 2>&1
py "$T/r.json" "$T/r.html" "$T/re.html" "$ROOT/tests/integration/py" <<'PY'
import json, re, sys
sys.path.insert(0, sys.argv[4])
import run_html as h
import iv_agents
r = json.load(open(sys.argv[1])); ph = r["phases"][0]
assert [a.get("lost", False) for a in r["agents"]] == [False, True, False], r["agents"]
note = "lost at %.1f s" % r["agents"][1]["lost_at_s"]
secs = ph["interval_ms"] / 1000
last = max(k + 1 for k, it in enumerate(ph["intervals"])
           if any(a["id"] == 1 and (sum(o["ops"] for o in a["ops"].values()) or a.get("inflight"))
                  for a in iv_agents.agents_n(it, len(ph["agents"]))))
want = (last * secs, len(ph["intervals"]) * secs)
assert 1 <= last < len(ph["intervals"]), (last, len(ph["intervals"]))
for path in sys.argv[2:4]:
    html = open(path).read()
    rows = re.findall(r'<tr class="lost" data-lost="([^"]*)"><td>(\d+)</td>.*?</tr>', html)
    assert rows == [("%.1f" % r["agents"][1]["lost_at_s"], "1")], "agent table: %s" % rows
    assert ">" + note + "</td>" in html, "agent table does not say %r" % note
    for view in ("throughput", "bandwidth", "latency", "fairness"):
        svg = h.views(html, view)[0]
        got = [(a, b, i) for kind, a, b, i in h.bands(svg) if kind == "lost"]
        assert got == [(want[0], want[1], 1)], "%s %s: lost bands %s, want %s" % (path, view, got, want)
        assert "agent lost" in h.legend(svg), "%s: no legend entry" % view
        assert '<text class="bandnote"' in svg and ">agent 1 " + note + "</text>" in svg, \
            "%s: the band does not say %r" % (view, "agent 1 " + note)
    for view in ("throughput", "bandwidth"):
        svg = h.views(html, view)[0]
        names = h.legend(svg)
        lost = [n for n in names if n.endswith("(lost)")]
        assert lost == ["1 " + r["agents"][1]["host"][:40] + " (lost)"], "%s legend: %s" % (view, names)
        assert 'stroke-dasharray="1 3"' in svg, "%s: the lost agent's line is not dotted" % view
    bars = h.views(html, "agents")[0]
    assert bars.count('data-marked="1"') == 1, "agents chart: %d marked bars" % bars.count('data-marked="1"')
    assert ">" + note + "</text>" in bars, "agents chart does not say %r" % note
print("lost band %s, %s" % (want, note))
PY
echo "lost agent marked"
