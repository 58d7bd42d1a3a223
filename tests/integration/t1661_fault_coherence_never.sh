#!/usr/bin/env bash
# rw=coherence must not pass when writes never become visible: faultfs
# drops every write of the coherence file (seen 0, never visible 10: the
# phase fails, nothing was measured), then only generation 3's block (9
# seen, 1 never visible: fails by default; coherence_never_visible=warn
# keeps the reason but exits 0), and the verdict survives a re-render of
# the JSON and the journal.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount
coh() {   # coh FILE [KEY=VALUE]
  printf '[global]\nrw=coherence\nbs=4k\nsize=40k\nfilename=c.dat\ndirectory=%s\n' "$FFS_M"
  printf 'coherence_writers=0\ncoherence_period=10ms\ncoherence_poll_interval=1ms\ncoherence_deadline=300ms\n%s\n' "${2:-}"
  printf '[w]\nagents=0\n[r]\nagents=1\n'
}
run() {   # run NAME PLAN: exit status in RC
  timeout 60 "$NFSTORM" run "$2" --local 2 --quiet --json "$T/$1.json" >"$T/$1.out" 2>&1
  RC=$?
  [ $RC -ne 124 ] || fail "$1: hung"
  [ -s "$T/$1.json" ] || fail "$1: no result: $(tail -n 3 "$T/$1.out")"
}
coh x >"$T/c.fio"
coh x coherence_never_visible=warn >"$T/w.fio"
faultfs_ctl "drop,file=c.dat"
run all "$T/c.fio"
[ $RC -eq 1 ] || fail "every write dropped: exit $RC, expected 1"
grep -q "coherence: no generation became visible to any reader (10 never visible)" "$T/all.out" \
  || fail "all: no reason: $(grep -A2 'phase verdict' "$T/all.out")"
faultfs_ctl clear "drop,file=c.dat,off=8k,len=4k"
run one "$T/c.fio"
[ $RC -eq 1 ] || fail "generation 3 dropped: exit $RC, expected 1"
grep -q "coherence: 1 of 10 generations never visible within the deadline (most: writer 0 -> reader 1, 1)" \
  "$T/one.out" || fail "one: no reason: $(grep -A2 'phase verdict' "$T/one.out")"
run warn "$T/w.fio"
[ $RC -eq 0 ] || fail "coherence_never_visible=warn: exit $RC, expected 0: $(grep -A2 'phase verdict' "$T/warn.out")"
grep -q "coherence: 1 of 10 generations never visible .*; coherence_never_visible=warn" "$T/warn.out" \
  || fail "warn: the never-visible generation is not said: $(grep -A2 'phase verdict' "$T/warn.out")"
faultfs_ctl clear
run clean "$T/c.fio"
[ $RC -eq 0 ] || fail "no fault: exit $RC: $(grep -A2 'phase verdict' "$T/clean.out")"
py "$T/all.json" "$T/one.json" "$T/warn.json" "$T/clean.json" <<'PY'
import json, sys
exp = [("failed", 0, 10, "fail"), ("failed", 9, 1, "fail"), ("ok", 9, 1, "warn"), ("ok", 10, 0, "fail")]
for path, (verdict, seen, never, policy) in zip(sys.argv[1:], exp):
    ph = json.load(open(path))["phases"][0]
    m = ph["coherence"]["merged"]
    assert (ph["verdict"], m["seen"], m["never_visible"], ph["coherence_never_visible"]) == (verdict, seen, never, policy), \
        (path, ph["verdict"], m, ph.get("coherence_never_visible"))
PY
for n in all one warn; do
  want=$(grep '^verdict:' "$T/$n.out")
  for src in "$T/$n.json" "$T/$n.json.journal"; do
    "$NFSTORM" report "$src" >"$T/re.out" 2>&1 || [ $? -eq 1 ] || fail "report $src: $(tail -n2 "$T/re.out")"
    [ "$(grep '^verdict:' "$T/re.out")" = "$want" ] || fail "re-rendered $src: $(grep '^verdict:' "$T/re.out") != $want"
  done
done
echo "coherence: nothing visible fails, one never-visible generation fails (warn: exit 0, said)"
