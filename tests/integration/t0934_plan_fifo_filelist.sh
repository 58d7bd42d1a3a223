#!/usr/bin/env bash
# Issue 15 item 7 (coordinator): a plan, or a file it includes, that is a
# FIFO (or anything but a regular file) is refused at once with file:line,
# exit 2, instead of hanging; filename=a:b is two files as in fio, with \:
# for a colon inside a name.
source "$(dirname "$0")/lib.sh"
mkfifo "$T/inc.fio" "$T/plan-fifo.fio"
printf '[x]\nrw=read\nbs=4k\nsize=64k\ninclude inc.fio\n' >"$T/p.fio"
timeout 10 "$NFSTORM" run --dry-run "$T/p.fio" >"$T/o" 2>&1; rc=$?
[ $rc -ne 124 ] || fail "an included FIFO hangs the coordinator"
[ $rc -eq 2 ] || fail "included FIFO: exit status $rc, want 2: $(cat "$T/o")"
grep -q "p.fio:5: include '.*inc.fio': a FIFO, not a regular file" "$T/o" || fail "included FIFO: $(cat "$T/o")"
timeout 10 "$NFSTORM" run --dry-run "$T/plan-fifo.fio" >"$T/o" 2>&1; rc=$?
[ $rc -ne 124 ] || fail "a plan that is a FIFO hangs the coordinator"
[ $rc -eq 2 ] || fail "plan FIFO: exit status $rc, want 2: $(cat "$T/o")"
grep -q "plan-fifo.fio: a FIFO, not a regular file" "$T/o" || fail "plan FIFO: $(cat "$T/o")"
printf '[x]\nrw=read\nbs=4k\nsize=64k\ninclude %s\n' "$T" >"$T/d.fio"
timeout 10 "$NFSTORM" run --dry-run "$T/d.fio" >"$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "d.fio:5: include .*: a directory, not a regular file" "$T/o" || fail "included directory: rc $rc: $(cat "$T/o")"
echo "FIFO and directory plans refused with file:line"

D=$T/d; mkdir -p "$D"
start_agent "$D"
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=x --rw=write --bs=4k --size=96k \
  --directory="$D" '--filename=a:b\:c:d' --json "$T/r.json" >"$T/o" 2>&1 || fail "filename list run: $(tail -n2 "$T/o")"
got=$(cd "$D" && for f in *; do printf '%s=%s ' "$f" "$(stat -c %s "$f")"; done)
[ "$got" = "a=32768 b:c=32768 d=32768 " ] || fail "filename=a:b\\:c:d made: $got"
py "$T/r.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]["ops"] == 24
PY
timeout 10 "$NFSTORM" run --agents "$AGENT_ADDR" --name=x --rw=write --bs=4k --size=64k '--filename=a::b' \
  >"$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "filename 'a::b': name 2 of the ':' list is empty" "$T/o" || fail "empty name: rc $rc: $(cat "$T/o")"
echo "filename=a:b\\:c:d is three files: $got"
