#!/usr/bin/env bash
# t1722: fio's fadvise_hint, read off the page cache with fincore after 200
# buffered 4 KiB reads of a 64 MiB file (invalidated first).  A sequential
# job announces POSIX_FADV_SEQUENTIAL by default (fio's 1): readahead
# brings in more pages than it read; fadvise_hint=random turns readahead
# off: exactly the pages read.  A random job announces random by default
# (Linux reads an isolated small random read as is anyway, so the gain is
# on mixed and mmap-like patterns; its cache shows the pages it read).
# (Before: no advice at all, whatever the plan said.)
source "$(dirname "$0")/lib.sh"
command -v fincore >/dev/null || skip "fincore (util-linux) is not installed"
D=$T/d; mkdir -p "$D"
head -c $((64 << 20)) /dev/urandom >"$D/f.dat"
start_agent "$D"
resident() {   # RW ARGS: 200 buffered reads of f.dat; prints its pages in cache
  local rw=$1; shift
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=r --rw="$rw" --bs=4k \
    --number_ios=200 --filename="$D/f.dat" "$@" >"$T/out" 2>&1 || fail "run: $(tail -n3 "$T/out")"
  fincore -b -n -o PAGES "$D/f.dat" | tr -d ' '
}
seq=$(resident read)
seq_random=$(resident read --fadvise_hint=random)
seq_off=$(resident read --fadvise_hint=0)
rand=$(resident randread)
echo "pages in cache after 200 reads: sequential $seq, with fadvise_hint=random $seq_random, =0 $seq_off; random $rand"
[ "$seq_random" -eq 200 ] || fail "fadvise_hint=random: $seq_random pages (want 200: no readahead)"
[ "$seq" -gt 240 ] || fail "a sequential job (fadvise_hint=1): $seq pages (want readahead past 200)"
[ "$seq_off" -gt 240 ] || fail "fadvise_hint=0: $seq_off pages (want the kernel's readahead)"
[ "$rand" -ge 200 ] && [ "$rand" -le 210 ] || fail "a random job: $rand pages (want ~200)"
expect_fail "bad fadvise_hint" "^nfstorm: --fadvise_hint: bad value 'often' \(want 0, 1, random or sequential\)" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --name=x --rw=read --size=1m --filename="$D/x" --fadvise_hint=often
echo "t1722: PASS"
