#!/usr/bin/env bash
# t1705: an output the user named (--csv, --html, --output, --timeseries, the
# journal beside --json) that is a FIFO nobody reads never hangs the
# coordinator: each is refused at once with one line naming the path and
# "a FIFO with no reader", exit 1, and the result the run measured is kept
# (--json is written); a FIFO that someone reads still gets the output.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
JOB=(--name=w --rw=write --bs=4k --size=64k --directory="$D")
mkfifo "$T/fifo"
for opt in --csv --html --output --timeseries; do
  rm -f "$T/r.json"
  start=$(date +%s%N)
  timeout -k 2 20 "$NFSTORM" run --local 1 --quiet "${JOB[@]}" --json "$T/r.json" $opt "$T/fifo" \
    >"$T/out" 2>&1; rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  [ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "$opt to a FIFO with no reader hung"
  [ $rc -eq 1 ] || fail "$opt to a FIFO: exit $rc, want 1: $(cat "$T/out")"
  grep -q "$T/fifo: cannot open for writing: a FIFO with no reader" "$T/out" ||
    fail "$opt: no clear line: $(cat "$T/out")"
  if [ $opt != --timeseries ]; then   # refused before the run, or its result kept
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["phases"][0]["ops"]["write"]["bytes"] == 65536' \
      "$T/r.json" || fail "$opt: the run's result was not kept"
  fi
  echo "ok: $opt to a FIFO with no reader: exit 1 in $ms ms"
done
# a journal path that is such a FIFO
rm -f "$T/j.json"; mkfifo "$T/j.json.journal"
timeout -k 2 20 "$NFSTORM" run --local 1 --quiet "${JOB[@]}" --json "$T/j.json" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "journal FIFO: exit $rc: $(cat "$T/out")"
grep -q "j.json.journal: cannot open for writing: a FIFO with no reader" "$T/out" || fail "journal FIFO: $(cat "$T/out")"
# with a reader, the FIFO gets the CSV
cat "$T/fifo" >"$T/got.csv" &
timeout -k 2 20 "$NFSTORM" run --local 1 --quiet "${JOB[@]}" --csv "$T/fifo" >"$T/out" 2>&1 || fail "csv to a read FIFO: $(cat "$T/out")"
wait
grep -q "write" "$T/got.csv" || fail "the reader got no CSV: $(head -3 "$T/got.csv")"
# --json names something that is not a regular file: it is written into, never replaced by a file
# (a rename over it once turned a device node into a regular file: as root, /dev/null or /dev/full)
timeout 20 "$NFSTORM" run --local 1 --quiet "${JOB[@]}" --json "$T/r.json" >"$T/out" 2>&1 || fail "plain run: $(cat "$T/out")"
mknod -m 666 "$T/null" c 1 3 2>/dev/null && {
  timeout 20 "$NFSTORM" report "$T/r.json" --json "$T/null" >/dev/null 2>"$T/e" || fail "report --json device: $(cat "$T/e")"
  [ -c "$T/null" ] || fail "report --json replaced the device node: $(ls -la "$T/null")"
  timeout 20 "$NFSTORM" run --local 1 --quiet "${JOB[@]}" --json "$T/null" >"$T/out" 2>&1 || fail "run --json device: $(cat "$T/out")"
  [ -c "$T/null" ] || fail "run --json replaced the device node: $(ls -la "$T/null")"
  [ -e "$T/null.journal" ] && fail "run --json DEVICE made a journal beside it"
  grep -q "is not a regular file: the result is written into it, and no journal is kept" "$T/out" || fail "no warning: $(cat "$T/out")"
}
echo old >"$T/target.json"; ln -s target.json "$T/link.json"
timeout 20 "$NFSTORM" report "$T/r.json" --json "$T/link.json" >/dev/null 2>"$T/e" || fail "report --json symlink: $(cat "$T/e")"
[ -L "$T/link.json" ] || fail "the symlink was replaced by a file"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/target.json" || fail "the symlink's target was not written"
mkfifo "$T/jfifo"
timeout -k 2 20 "$NFSTORM" report "$T/r.json" --json "$T/jfifo" >/dev/null 2>"$T/e"; rc=$?
[ $rc = 1 ] && grep -q "jfifo: cannot write: a FIFO with no reader" "$T/e" || fail "json to a FIFO without a reader: exit $rc: $(cat "$T/e")"
[ -p "$T/jfifo" ] || fail "the FIFO was replaced"
cat "$T/jfifo" >"$T/got.json" &
for _ in $(seq 50); do   # until the reader has the FIFO open (then the write goes through)
  timeout -k 2 20 "$NFSTORM" report "$T/r.json" --json "$T/jfifo" >/dev/null 2>"$T/e" && break
  grep -q "a FIFO with no reader" "$T/e" || fail "json to a read FIFO: $(cat "$T/e")"
  sleep 0.1
done
wait
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/got.json" || fail "the FIFO's reader got no JSON"
echo "outputs to FIFOs: refused at once without a reader, written with one; --json writes into devices, FIFOs and symlinks' targets"
