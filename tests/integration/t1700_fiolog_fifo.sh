#!/usr/bin/env bash
# A fio log whose file is a FIFO (nobody reading it) or a directory: the
# coordinator refuses it before the run with one line naming the file
# (exit 1), never blocks in open(2) for a reader (it used to hang, deaf
# even to SIGTERM); a regular file of the same prefix still works.
source "$(dirname "$0")/lib.sh"
mkfifo "$T/f_bw.1.log"
SECONDS=0
# (-k: the hang this guards against ignored SIGTERM)
timeout -k 2 15 "$NFSTORM" run --local 1 --quiet --name=a --rw=read --size=1m --ioengine=null \
  --write_bw_log="$T/f" >"$T/o" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "FIFO: exit $rc (124/137: hung), want 1: $(tail -n2 "$T/o")"
[ $SECONDS -le 10 ] || fail "refusing the FIFO took ${SECONDS}s"
[ "$(tail -n1 "$T/o")" = "nfstorm: cannot write a fio log: $T/f_bw.1.log: not a regular file" ] ||
  fail "FIFO: $(tail -n1 "$T/o")"
[ -p "$T/f_bw.1.log" ] || fail "the FIFO was replaced"
mkdir "$T/d_iops.1.log"
expect_fail dir "cannot write a fio log: $T/d_iops.1.log: " \
  "$NFSTORM" run --local 1 --quiet --name=a --rw=read --size=1m --ioengine=null --write_iops_log="$T/d"
timeout 30 "$NFSTORM" run --local 1 --quiet --name=a --rw=read --size=1m --ioengine=null \
  --write_bw_log="$T/g" >"$T/o" 2>&1 || fail "regular file: $(tail -n2 "$T/o")"
py "$T/g_bw.1.log" <<'PY'
import sys
rows = [l.split(", ") for l in open(sys.argv[1]).read().splitlines()]
assert len(rows) == 1 and rows[0][2] == "0" and int(rows[0][1]) > 0, rows
PY
echo "a FIFO or a directory as a fio log is refused at once; a regular file is written"
