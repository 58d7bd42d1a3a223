#!/usr/bin/env bash
# SIGTERM (twice) while the JSON result is being written: the write is
# finished, not cut off; no temp file is left beside it; exit 130.  (It
# used to kill the process mid-write and leave a PATH.XXXXXX temp file.)
# The result comes from `nfstorm report JOURNAL --json`, which writes the
# same way `run --json` does, on a journal big enough to take seconds.
source "$(dirname "$0")/lib.sh"
python3 "$(dirname "$0")/py/big_journal.py" "$T/big.journal"
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
