#!/usr/bin/env bash
# nfstorm-test: serial (valgrind)
# The agent runs leak-free and error-free under valgrind through a normal
# run, a metadata run, a refused plan and hostile bytes.  (Skipped for the
# sanitizer build: ASan and valgrind do not mix.)
source "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || skip "valgrind is not installed"
nm "$AGENT" 2>/dev/null | grep -q __asan_init && skip "agent built with ASan (SANITIZE=1)"
D=$T/d; O=$T/outside; mkdir -p "$D" "$O"
valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 --log-file="$T/vg.log" \
  "$AGENT" --listen 127.0.0.1:0 --insecure --allow "$D" >"$T/a.out" 2>"$T/a.log" &
vp=$!; PIDS+=($vp)
for _ in $(seq 150); do grep -q "^listening on" "$T/a.out" 2>/dev/null && break; sleep 0.2; done
A=$(sed -n 's/^listening on //p' "$T/a.out")
[ -n "$A" ] || fail "agent under valgrind did not start: $(tail -n3 "$T/vg.log")"
run() { timeout 120 "$NFSTORM" run --agents "$A" --quiet --connect-timeout 30s "$@" >"$T/o" 2>&1; }
run --name=w --rw=randwrite --bs=4k --size=512k --numjobs=2 || fail "write run: $(tail -n1 "$T/o")"
timeout 120 "$NFSTORM" clean --agents "$A" --connect-timeout 30s --name=w --rw=randwrite --bs=4k --size=512k \
  --numjobs=2 >"$T/o" 2>&1 || fail "clean: $(tail -n1 "$T/o")"
grep -q "removed 2 files, 1MiB" "$T/o" || fail "clean under valgrind: $(cat "$T/o")"
run --name=r --rw=randread --bs=4k --size=512k --runtime=1 --time_based --rate_iops=200 || fail "read run: $(tail -n1 "$T/o")"
run --name=m --rw=metadata --nrfiles=20 --md_ops=create,stat,rename,unlink || fail "metadata run: $(tail -n1 "$T/o")"
run --name=x --rw=write --bs=4k --size=64k --directory="$O" && fail "plan outside --allow accepted"
timeout 60 python3 "$(dirname "$0")/py/hostile.py" "${A##*:}" >/dev/null || fail "hostile client failed"
kill -TERM $vp; wait $vp; rc=$?
[ $rc -eq 0 ] || fail "valgrind reports errors or leaks (exit $rc): $(grep -E 'ERROR SUMMARY|definitely lost' "$T/vg.log")"
grep -q "ERROR SUMMARY: 0 errors" "$T/vg.log" || fail "valgrind: $(grep 'ERROR SUMMARY' "$T/vg.log")"
echo "agent clean under valgrind: $(grep -o 'definitely lost: [0-9,]* bytes' "$T/vg.log" | head -1)"
