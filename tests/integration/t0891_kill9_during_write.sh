#!/usr/bin/env bash
# kill -9 while the result JSON is being written leaves no temp file beside
# it: the data goes to an unnamed (O_TMPFILE) file that is named only once
# complete, then renamed into place.  The coordinator is killed at instants
# spread over a long write (`report JOURNAL --json`, the same writer as
# `run --json`); after each kill the directory holds the old result or the
# new one, complete, and nothing else.
source "$(dirname "$0")/lib.sh"
python3 - "$T/big.journal" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    dump = lambda o: f.write(json.dumps(o, separators=(",", ":")) + "\n")
    dump({"type": "header", "schema": 1, "label": "", "started": 0, "interval_ms": 1000, "nagents": 4,
          "agents": [{"id": i, "addr": "a:%d" % i, "host": "h", "ncpus": 1, "clock_offset_ns": 0, "rtt_ns": 1}
                     for i in range(4)],
          "phases": [{"name": "p", "rw": "randread", "bs": 4096, "numjobs": 1, "njobs": 1}]})
    b = []
    for i in range(200, 1400, 3):
        b += [i, 5]
    lat = {"count": len(b) // 2 * 5, "sum": 10**9, "min": 100, "max": 10**6, "b": b}
    svc = {"count": 0, "sum": 0, "min": 0, "max": 0, "b": []}
    for k in range(3000):
        for a in range(4):
            dump({"type": "interval", "phase": 0, "agent": a, "k": k, "inflight": 0, "oldest_ns": 0,
                  "ops": {"read": {"ops": lat["count"], "bytes": lat["count"] * 4096, "errors": 0,
                                   "timeouts": 0, "lat": lat, "svc": svc}}})
    dump({"type": "phase_end", "phase": 0})
    dump({"type": "end", "outcome": "ok"})
PY
mkdir -p "$T/out"
# how long a whole report takes here, to spread the kills over it
s=$(date +%s%N)
"$NFSTORM" report "$T/big.journal" --json "$T/out/r.json" >/dev/null 2>&1
total_ms=$(( ($(date +%s%N) - s) / 1000000 ))
[ -s "$T/out/r.json" ] || fail "no result written by an undisturbed report"
rm -f "$T/out/r.json"
kills=0
for pct in 40 50 60 65 70 75 80 85 90 93 96 99; do
  "$NFSTORM" report "$T/big.journal" --json "$T/out/r.json" >/dev/null 2>&1 &
  c=$!
  sleep "$(awk -v t=$total_ms -v p=$pct 'BEGIN { printf "%.3f", t * p / 100000 }')"
  kill -9 $c 2>/dev/null && kills=$((kills + 1))
  wait $c 2>/dev/null
  left=$(ls "$T/out" | grep -v '^r\.json$' || true)
  [ -z "$left" ] || fail "kill -9 at ${pct}% of a ${total_ms} ms report left: $left"
  if [ -e "$T/out/r.json" ]; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out/r.json" || fail "r.json is not complete"
  fi
done
[ $kills -ge 6 ] || fail "only $kills of 12 kills landed before the report finished (${total_ms} ms)"
echo "kill -9 at 12 instants of a ${total_ms} ms report ($kills landed): no temp file left"
