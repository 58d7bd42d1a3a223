#!/usr/bin/env bash
# Laying out files before a read phase shows progress (bytes laid out /
# total) on the live line, the whole fleet's total from the first line on
# (it once grew as each agent's first report came: 1.17GiB, then 2.34GiB),
# and the files end up fully written.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
timeout 120 "$NFSTORM" run --local 2 --name=lay --rw=read --bs=1m --size=1200m --runtime=1 \
  --directory="$D" >"$T/out" 2>"$T/err" || fail "run failed: $(tail -n2 "$T/err")"
grep -Eq "laying out files [0-9.]+[KMG]iB / 2\.34GiB" "$T/err" || fail "no layout progress: $(head -c 300 "$T/err")"
grep "laying out files" "$T/err" | grep -v " / 2\.34GiB" | head -n 1 | grep . &&
  fail "the layout's total changed mid-way: $(grep "laying out files" "$T/err" | head -n 3)"
for a in 0 1; do
  [ "$(stat -c %s "$D/lay.$a.0.0")" -eq $((1200 << 20)) ] || fail "lay.$a.0.0 not laid out"
done
echo "layout progress shown"
