#!/usr/bin/env bash
# `nfstorm compare` and `nfstorm report` on a full disk (R1 review of issue
# 13): stdout redirected to /dev/full, or to a file on a full tmpfs, made
# them exit 0 with the report lost or cut off (and compare --format json
# blamed memory or UTF-8).  Now: exit 1 and one line saying stdout could
# not be written, in every compare format and for a result and a set; the
# same commands to a real file still exit 0 with the whole report.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
job=(--directory="$D" --name=r --rw=randread --bs=4k --size=4m --runtime=300ms --time_based)
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/a.json" "${job[@]}" >"$T/a.out" 2>&1 || fail "run a: $(cat "$T/a.out")"
timeout 60 "$NFSTORM" run --local 1 --quiet --repeat 2 --json "$T/s.json" "${job[@]}" >"$T/s.out" 2>&1 \
  || fail "run s: $(cat "$T/s.out")"
full() {  # NAME OUT ARGS...: exit 1, one line on stderr about stdout
  local name=$1 out=$2 rc; shift 2
  timeout 20 "$NFSTORM" "$@" >"$out" 2>"$T/e"; rc=$?
  [ $rc -eq 1 ] || fail "$name: exit $rc on a full stdout, want 1: $(cat "$T/e")"
  [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "^nfstorm: $1: cannot write the report to stdout: " "$T/e" \
    || fail "$name: stderr: $(cat "$T/e")"
}
for f in text md csv json html; do
  full "compare $f" /dev/full compare "$T/a.json" "$T/s.json" --format $f
  timeout 20 "$NFSTORM" compare "$T/a.json" "$T/s.json" --format $f >"$T/ok.$f" 2>"$T/e" || fail "compare $f to a file: $(cat "$T/e")"
  [ -s "$T/ok.$f" ] && [ ! -s "$T/e" ] || fail "compare $f to a file: empty or a message: $(cat "$T/e")"
done
full "report result" /dev/full report "$T/a.json"
full "report set" /dev/full report "$T/s.json"
full "report journal" /dev/full report "$T/a.json.journal"
timeout 20 "$NFSTORM" report "$T/a.json" >"$T/ok.txt" 2>"$T/e" && grep -q "^verdict: ok (exit status 0)" "$T/ok.txt" \
  || fail "report to a file: $(cat "$T/e")"

# a file on a tmpfs that fills up part-way through the HTML
S=$T/small; mkdir -p "$S"
if mount -t tmpfs -o size=4k tmpfs "$S" 2>/dev/null; then
  trap 'umount "$S" 2>/dev/null; cleanup' EXIT
  [ "$(wc -c <"$T/ok.html")" -gt 6000 ] || fail "the HTML is too small to fill 4k: $(wc -c <"$T/ok.html")"
  full "compare html to a full tmpfs" "$S/c.html" compare "$T/a.json" "$T/s.json" --format html
  [ "$(wc -c <"$S/c.html")" -lt "$(wc -c <"$T/ok.html")" ] || fail "the tmpfs held the whole page?"
fi
echo "full stdout ok"
