#!/usr/bin/env bash
# rw=coherence on a local directory, 3 agents: writers 0 and 1 write 8
# generations each (close after each), reader 2 polls both by open/read/
# close.  Every generation is seen, none is lost, the lag is small; the
# JSON has one pair per (writer, reader), the merged figures are their exact
# sums, and each pair's error bound is (rtt(w) + rtt(r)) / 2 from the
# agents' own rows; `nfstorm report` re-renders it alike from the JSON and
# from the journal.  A second run polls by stat with fsync.  Bad coherence
# keys are refused with one line.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
plan() {  # $1 = coherence_close, $2 = coherence_poll
  cat <<F
[c]
directory=$D
rw=coherence
bs=4k
size=32k
coherence_writers=0-1
coherence_close=$1
coherence_poll=$2
coherence_period=20ms
coherence_deadline=3s
F
}
check() {  # $1 = result JSON, $2 = text report
  py "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ph = r["phases"][0]
c = ph["coherence"]
pairs = [(p["writer"], p["reader"]) for p in c["pairs"]]
assert pairs == [(0, 2), (1, 2)], pairs
rtt = {a["id"]: a["rtt_ns"] for a in r["agents"]}
for p in c["pairs"]:
    assert p["seen"] == 8 and p["never_visible"] == 0, p
    lag = p["lag"]
    assert lag["hist"]["count"] == 8, lag["hist"]
    assert 0 < lag["min"] <= lag["p50"] <= lag["max"] < 500e6, lag
    assert p["error_bound_ns"] == rtt[p["writer"]] // 2 + rtt[p["reader"]] // 2, (p["error_bound_ns"], rtt)
m = c["merged"]
assert m["seen"] == 16 and m["never_visible"] == 0, m
assert m["lag"]["hist"]["count"] == 16
assert m["lag"]["hist"]["sum"] == sum(p["lag"]["hist"]["sum"] for p in c["pairs"])
assert m["lag"]["max"] == max(p["lag"]["max"] for p in c["pairs"])
assert c["error_bound_ns"] == max(p["error_bound_ns"] for p in c["pairs"])
# the writers' writes are ordinary ops of the phase: 8 each
w = {a["id"]: a["ops"].get("write", {}).get("ops", 0) for a in ph["agents"]}
assert w == {0: 8, 1: 8, 2: 0}, w
text = open(sys.argv[2]).read()
for who in ("0->2", "1->2"):
    line = [l for l in text.splitlines() if l.strip().startswith(who + " ")]
    assert line and "seen      8  never visible    0" in line[0], (who, line)
assert [l for l in text.splitlines() if l.strip().startswith("merged ") and "seen     16" in l], text
PY
}
plan close read >"$T/a.fio"
timeout 60 "$NFSTORM" run --local 3 --quiet --json "$T/a.json" "$T/a.fio" >"$T/a.txt" 2>&1 || fail "close/read: $(tail -n2 "$T/a.txt")"
check "$T/a.json" "$T/a.txt"
[ "$(stat -c %s "$D/c.0.0.0")" -eq 32768 ] && [ "$(stat -c %s "$D/c.1.0.0")" -eq 32768 ] ||
  fail "the writers' files are not 8 blocks each"
# re-rendered from the JSON and from the journal: the same coherence object and lines
for src in "$T/a.json" "$T/a.json.journal"; do
  timeout 30 "$NFSTORM" report "$src" --json "$T/re.json" --html "$T/re.html" >"$T/re.txt" 2>&1 ||
    fail "report $src: $(tail -n2 "$T/re.txt")"
  [ "$(grep -c '<tr data-coh-seen="8" data-coh-never="0"' "$T/re.html")" -eq 2 ] &&
    grep -q '<tr data-coh-seen="16" data-coh-never="0"' "$T/re.html" || fail "report $src: HTML coherence rows"
  py "$T/a.json" "$T/re.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["phases"][0]["coherence"] for p in sys.argv[1:])
assert a == b, (a, b)
PY
  diff <(grep -A3 '^coherence' "$T/a.txt") <(grep -A3 '^coherence' "$T/re.txt") >/dev/null ||
    fail "report $src: coherence lines differ: $(grep -A3 '^coherence' "$T/re.txt")"
done
plan fsync stat >"$T/b.fio"
timeout 60 "$NFSTORM" run --local 3 --quiet --json "$T/b.json" "$T/b.fio" >"$T/b.txt" 2>&1 || fail "fsync/stat: $(tail -n2 "$T/b.txt")"
check "$T/b.json" "$T/b.txt"
py "$T/b.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["phases"][0]["agents"]
assert a[2]["ops"]["stat"]["ops"] >= 16, a[2]["ops"]    # the reader polled by stat
PY

refused() {  # $1 = extra plan lines, $2 = the expected message
  printf '[c]\nrw=coherence\nsize=32k\n%b\n' "$1" >"$T/bad.fio"
  local rc; timeout 30 "$NFSTORM" run --local 2 --dry-run "$T/bad.fio" >"$T/out" 2>&1; rc=$?
  [ $rc -eq 2 ] || fail "'$1': exit $rc, want 2: $(head -c 300 "$T/out")"
  grep -q -- "$2" "$T/out" || fail "'$1': no '$2' in: $(head -c 300 "$T/out")"
  [ "$(grep -c . "$T/out")" -eq 1 ] || fail "'$1': not one line: $(head -c 300 "$T/out")"
}
refused 'coherence_close=maybe' "coherence_close must be close, fsync or none (got 'maybe')"
refused 'coherence_poll=peek' "coherence_poll must be read or stat"
refused 'ioengine=io_uring' "rw=coherence needs ioengine=psync"
refused 'numjobs=2' "rw=coherence takes one file per writer"
refused 'bs=16' "rw=coherence needs a fixed bs of at least 32 bytes"
refused 'verify=crc32c' "rw=coherence takes no rotate, time_based, rate or verify"
refused 'coherence_period=0' "coherence_period, coherence_deadline and coherence_poll_interval must be greater than 0"
printf '[r]\nrw=read\nsize=32k\ncoherence_writers=1\n' >"$T/bad.fio"
timeout 30 "$NFSTORM" run --local 2 --dry-run "$T/bad.fio" >"$T/out" 2>&1
[ $? -eq 2 ] && grep -q "coherence_writers= requires rw=coherence" "$T/out" || fail "coherence_writers on a read job: $(cat "$T/out")"
echo "coherence: 2 writers x 1 reader, every generation seen, exact merge, bound = (rtt_w + rtt_r)/2"
