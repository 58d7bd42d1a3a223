#!/usr/bin/env bash
# The live status line: one line per interval through a pipe; redrawn in
# place (carriage returns) in a pseudo-terminal; nothing with --quiet.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
ARGS=(--name=r --rw=randread --bs=4k --size=4m --directory="$D" --runtime=3 --time_based)
timeout 60 "$NFSTORM" run --local 2 "${ARGS[@]}" 2>"$T/err" >/dev/null | cat || fail "pipe run"
n=$(grep -c '^\[1/1 r\] .* IOPS .* p99 .* agents 2 running 0 lost' "$T/err")
[ "$n" -ge 3 ] || fail "want >= 3 status lines through a pipe, got $n: $(cat "$T/err")"
grep -q '\[#' "$T/err" || fail "no progress bar: $(cat "$T/err")"
grep -q $'\r' "$T/err" && fail "carriage return in piped output"
command -v script >/dev/null || skip "no script(1) for the pseudo-terminal part"
timeout 60 script -qfec "$NFSTORM run --local 1 --directory=$D --name=r --rw=randread --bs=4k --size=4m --runtime=3 --time_based >/dev/null" "$T/tty" >/dev/null 2>&1 \
  || fail "tty run"
r=$(tr -cd '\r' <"$T/tty" | wc -c)
[ "$r" -ge 3 ] || fail "want the status redrawn (>= 3 carriage returns) in a tty, got $r"
grep -aq '100%' "$T/tty" || fail "tty status never reached 100%"
timeout 60 "$NFSTORM" run --local 1 --quiet "${ARGS[@]}" 2>"$T/q" >/dev/null || fail "quiet run"
[ ! -s "$T/q" ] || fail "--quiet printed: $(cat "$T/q")"
echo "live line ok"
