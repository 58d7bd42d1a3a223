#!/usr/bin/env bash
# A --local coordinator leaves nothing behind: its one-time secret never
# touches a disk, and its temporary directory (laid-out files, agent logs)
# is removed also when the coordinator is killed with -9 mid-run, or with
# SIGHUP, or when an agent cannot start.
source "$(dirname "$0")/lib.sh"
TMP=$T/tmp; mkdir -p "$TMP"
job=(--quiet --name=l --rw=randwrite --bs=4k --size=16m --runtime=30 --time_based)

TMPDIR=$TMP "$NFSTORM" run --local 2 "${job[@]}" >"$T/o" 2>&1 &
c=$!; PIDS+=("$c")
for _ in $(seq 50); do ls "$TMP"/nfstorm.*/l.* >/dev/null 2>&1 && break; sleep 0.1; done
sleep 1
during=$(cd "$TMP" && ls -A)
[ "$(echo "$during" | wc -w)" -eq 1 ] || fail "more than the temporary directory in \$TMPDIR during the run: $during"
ls -A "$TMP"/nfstorm.* | grep -qi secret && fail "a secret file on disk: $(ls -A "$TMP"/nfstorm.*)"
n=$(ls "$TMP"/nfstorm.*/l.* 2>/dev/null | wc -l)
[ "$n" -eq 2 ] || fail "want the 2 agents' files laid out in the temporary directory, found $n"
kill -9 $c; wait $c 2>/dev/null
for _ in $(seq 50); do [ -z "$(ls -A "$TMP")" ] && break; sleep 0.1; done
[ -z "$(ls -A "$TMP")" ] || fail "left behind after kill -9: $(cd "$TMP" && find . | head)"

# SIGTERM while the agents start: exit 130 at once, nothing left
# (counted from when the coordinator catches SIGTERM: before its main() runs
# no program can, and a slow start under ASan could otherwise take longer
# than the offset)
for off in 0.02 0.1; do
  TMPDIR=$TMP "$NFSTORM" run --local 4 "${job[@]}" >"$T/o" 2>&1 &
  c=$!; PIDS+=("$c")
  for _ in $(seq 500); do
    m=$(awk '/^SigCgt/{print $2}' /proc/$c/status 2>/dev/null)
    [ -n "$m" ] && (( 0x$m & (1 << 14) )) && break
    sleep 0.002
  done
  sleep $off; kill -TERM $c
  timeout 10 tail --pid=$c -f /dev/null; wait $c; rc=$?
  [ $rc -eq 130 ] || fail "SIGTERM at ${off}s: exit $rc, want 130: $(tail -n2 "$T/o")"
  for _ in $(seq 50); do [ -z "$(ls -A "$TMP")" ] && break; sleep 0.1; done
  [ -z "$(ls -A "$TMP")" ] || fail "left behind after SIGTERM at ${off}s: $(cd "$TMP" && find . | head)"
done

# SIGHUP (terminal closed): results, exit 130, nothing left
TMPDIR=$TMP "$NFSTORM" run --local 1 "${job[@]}" --json "$T/hup.json" >"$T/o" 2>&1 &
c=$!; PIDS+=("$c")
wait_intervals "$T/hup.json.journal" 2 || fail "SIGHUP: the run has no 2 intervals: $(tail -n2 "$T/o")"
kill -HUP $c
timeout 20 tail --pid=$c -f /dev/null; wait $c; rc=$?
[ $rc -eq 130 ] || fail "SIGHUP: exit $rc, want 130: $(tail -n2 "$T/o")"
[ -z "$(ls -A "$TMP")" ] || fail "left behind after SIGHUP: $(ls -A "$TMP")"

# an agent that cannot start: its log's last line is quoted, nothing left
printf '#!/bin/sh\necho "nfstorm-agent: cannot do this here" >&2\nexit 1\n' >"$T/bad-agent"
chmod +x "$T/bad-agent"
mkdir -p "$T/bin"; cp "$NFSTORM" "$T/bin/nfstorm"; cp "$T/bad-agent" "$T/bin/nfstorm-agent"
TMPDIR=$TMP timeout 20 "$T/bin/nfstorm" run --local 1 "${job[@]}" >"$T/o" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "agent that cannot start: exit $rc, want 1: $(cat "$T/o")"
grep -q "local agent 0 did not start (.*): nfstorm-agent: cannot do this here" "$T/o" || fail "reason not quoted: $(cat "$T/o")"
[ -z "$(ls -A "$TMP")" ] || fail "left behind after a failed start: $(ls -A "$TMP")"
echo "--local: no secret on disk; nothing left after kill -9, SIGHUP or a failed start"
