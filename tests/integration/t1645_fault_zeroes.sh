#!/usr/bin/env bash
# Zeroes returned for a range (faultfs zeroes on read; the stored data is
# right) are unwritten zeroes, located at the block faultfs logged, agent
# 1's file only: a whole block (psync) and one 512-byte sector inside a
# block (io_uring).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount "zeroes,file=zp.1,off=4k,len=4k" "zeroes,file=zi.1,off=5k,len=512"
for e in $ENGINES; do
  p=${e:0:1}
  ffs_plan "$T/z$p.fio" "z$p" "$e" 1
  ffs_run "z$p" "$T/z$p.fio"
  [ $RC -eq 1 ] || fail "$e: zeroes: exit $RC, expected 1: $(tail -n 3 "$T/z$p.out")"
  ffs_check "z$p" --prefix "z$p" --kind zeroes --agent 1 --logkind zeroes --count 1 --checked 16
  ffs_verdict "z$p" "z$p.1" 4096 zeroes
done
echo "zeroes: unwritten zeroes at faultfs's block, agent 1 (psync, io_uring)"
