#!/usr/bin/env bash
# A failed write of fio's JSON report is not "out of memory": stdout whose
# reader went (`| head`) ends quietly with 141 as the other reports do
# (issue 23 item 13); a full disk names the write error once; an --output
# file that cannot be written is named by its path.
source "$(dirname "$0")/lib.sh"
timeout 30 "$NFSTORM" run --local 1 --quiet --name=t --ioengine=null --rw=read --bs=4k --size=1m \
  --runtime=1 --time_based --rate_iops=100 --json "$T/r.json" >/dev/null 2>"$T/run.err" \
  || fail "run: $(cat "$T/run.err")"
# stdout a pipe nobody reads: every write fails with EPIPE
py "$T" "$NFSTORM" <<'PY'
import os, subprocess, sys
T, N = sys.argv[1], sys.argv[2]
for fmt in ("json", "json+", "json,normal"):
    r, w = os.pipe()
    os.close(r)
    p = subprocess.run([N, "report", T + "/r.json", "--output-format", fmt], stdout=w, stderr=subprocess.PIPE,
                       timeout=20)
    os.close(w)
    err = p.stderr.decode()
    assert p.returncode == 141 and err == "", (fmt, p.returncode, err)
print("closed pipe: 141, quiet")
PY
"$NFSTORM" report "$T/r.json" --output-format json >/dev/full 2>"$T/full.err"
rc=$?
[ "$rc" = 1 ] || fail "full disk: exit $rc, want 1"
[ "$(grep -c "cannot write the report to stdout: No space left on device" "$T/full.err")" = 1 ] \
  || fail "full disk: $(cat "$T/full.err")"
! grep -q "out of memory" "$T/full.err" || fail "full disk called out of memory: $(cat "$T/full.err")"
"$NFSTORM" report "$T/r.json" --output-format json --output /dev/full >/dev/null 2>"$T/out.err"
rc=$?
[ "$rc" = 1 ] || fail "--output /dev/full: exit $rc, want 1"
grep -q "^nfstorm: /dev/full: cannot write: No space left on device$" "$T/out.err" \
  || fail "--output /dev/full: $(cat "$T/out.err")"
! grep -q "out of memory" "$T/out.err" || fail "--output /dev/full called out of memory: $(cat "$T/out.err")"
echo "fio JSON write errors named as write errors; a closed pipe is quiet"
