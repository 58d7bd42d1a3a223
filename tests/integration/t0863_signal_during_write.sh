#!/usr/bin/env bash
# SIGTERM (twice) while the JSON result is being written: the write is
# finished, not cut off; no temp file is left beside it; exit 130.  (It
# used to kill the process mid-write and leave a PATH.XXXXXX temp file.)
# The result comes from `nfstorm report JOURNAL --json`, which writes the
# same way `run --json` does, on a journal big enough to take seconds.
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
    for k in range(4000):
        for a in range(4):
            dump({"type": "interval", "phase": 0, "agent": a, "k": k, "inflight": 0, "oldest_ns": 0,
                  "ops": {"read": {"ops": lat["count"], "bytes": lat["count"] * 4096, "errors": 0,
                                   "timeouts": 0, "lat": lat, "svc": svc}}})
    # each agent's phase-done: the sum of its 4000 intervals (a complete, ok run)
    n = 4000
    tot = dict(lat, count=lat["count"] * n, sum=lat["sum"] * n, b=[x * n if i % 2 else x for i, x in enumerate(b)])
    for a in range(4):
        dump({"type": "phase_done", "phase": 0, "agent": a, "duration_ns": n * 10**9, "start_ns": 0,
              "cpu_user_s": 0.0, "cpu_sys_s": 0.0, "cores": 1, "nintervals": n,
              "ops": {"read": {"ops": tot["count"], "bytes": tot["count"] * 4096, "errors": 0,
                               "timeouts": 0, "lat": tot, "svc": svc}}})
    dump({"type": "phase_end", "phase": 0})
    dump({"type": "end", "outcome": "ok"})
PY
# while the journal loads there is nothing to finish: SIGINT ends it at once
"$NFSTORM" report "$T/big.journal" --json "$T/out.json" >/dev/null 2>"$T/err" &
c=$!; PIDS+=("$c")
sleep 0.5; kill -INT $c
timeout 5 tail --pid=$c -f /dev/null || fail "SIGINT while loading: still running after 5 s"
wait $c; rc=$?
[ $rc -eq 130 ] || fail "SIGINT while loading: exit $rc, want 130: $(cat "$T/err")"
ls "$T"/out.json* >/dev/null 2>&1 && fail "SIGINT while loading: output written: $(ls "$T")"

"$NFSTORM" report "$T/big.journal" --json "$T/out.json" >/dev/null 2>"$T/err" &
c=$!; PIDS+=("$c")
# the write is under way once the process holds the result's temp file open:
# unnamed (O_TMPFILE, shown as "DIR/#INODE (deleted)") or, where the file
# system has none, a named out.json.XXXXXX
writing() { ls -l /proc/$c/fd 2>/dev/null | grep -q -e "$T/#" -e "$T/out.json."; }
for _ in $(seq 3000); do writing && break; sleep 0.01; done
writing || fail "never saw the temp file of the JSON write"
kill -TERM $c; sleep 0.05; kill -TERM $c
timeout 60 tail --pid=$c -f /dev/null; wait $c; rc=$?
[ $rc -eq 130 ] || fail "SIGTERM during the write: exit $rc, want 130: $(cat "$T/err")"
left=$(ls "$T"/out.json.* 2>/dev/null)
[ -z "$left" ] || fail "temp file left behind: $left ($(du -b $left | cut -f1) bytes)"
grep -q "result files are never cut short" "$T/err" || fail "no word about the signal: $(cat "$T/err")"
py "$T/out.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["phases"][0]["intervals"]) == 4000, len(r["phases"][0]["intervals"])
PY
echo "SIGTERM x2 during a $(du -m "$T/out.json" | cut -f1) MB JSON write: finished, no temp file, exit 130"
