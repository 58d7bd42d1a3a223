#!/usr/bin/env bash
# `nfstorm report r.json | head -3`: a reader that closes the pipe chose to
# stop reading.  report and compare then exit quietly with status 141 (what
# a shell reports for a Unix tool ended by SIGPIPE; docs/running.md), no
# "cannot write the report to stdout" line; a full disk (/dev/full) is
# still an error (t1394).
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/a.json" --directory="$D" --name=r --rw=randread \
  --bs=4k --size=1m --runtime=200ms --time_based >"$T/a.out" 2>&1 || fail "run: $(cat "$T/a.out")"
closed() {  # NAME ARGS...: stdout a pipe whose read end is closed before it writes
  local name=$1; shift
  py "$NFSTORM" "$name" "$@" <<'PY'
import os, subprocess, sys
exe, name, args = sys.argv[1], sys.argv[2], sys.argv[3:]
r, w = os.pipe()
os.close(r)                      # the reader is gone before the first write
p = subprocess.run([exe] + args, stdout=w, stderr=subprocess.PIPE, timeout=20)
os.close(w)
assert p.returncode == 141, "%s: exit %d, want 141: %r" % (name, p.returncode, p.stderr)
assert p.stderr == b"", "%s: said something: %r" % (name, p.stderr)
PY
}
closed "report" report "$T/a.json"
closed "compare" compare "$T/a.json" "$T/a.json"
closed "compare html" compare "$T/a.json" "$T/a.json" --format html
# the everyday form: head reads 3 lines and leaves; nothing on stderr
timeout 20 "$NFSTORM" compare "$T/a.json" "$T/a.json" --format html 2>"$T/e" | head -3 >"$T/h"
[ "$(wc -l <"$T/h")" = 3 ] || fail "head got: $(cat "$T/h")"
[ ! -s "$T/e" ] || fail "a closed pipe made it say: $(cat "$T/e")"
# a full disk still fails, with its line
timeout 20 "$NFSTORM" report "$T/a.json" >/dev/full 2>"$T/e"; rc=$?
[ $rc = 1 ] && grep -q "^nfstorm: report: cannot write the report to stdout: " "$T/e" || fail "/dev/full: exit $rc: $(cat "$T/e")"
echo "closed pipe quiet"
