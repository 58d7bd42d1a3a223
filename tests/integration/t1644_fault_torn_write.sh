#!/usr/bin/env bash
# A torn write (faultfs stores only the first part of a write over a block
# an earlier phase wrote) leaves the new header with the old data: torn, at
# the block faultfs logged, in agent 0's file only, its header agent 0's;
# torn after 1 KiB (psync, crc32c) and after 2 KiB (io_uring, the default
# half, verify=sha256).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount "torn,file=tp.0,off=12k,len=4k,skip=1,keep=1k" "torn,file=ti.0,off=12k,len=4k,skip=1"
for e in $ENGINES; do
  p=${e:0:1}
  v=crc32c; [ "$e" = io_uring ] && v=sha256
  FFS_VERIFY=$v ffs_plan "$T/t$p.fio" "t$p" "$e" 2
  ffs_run "t$p" "$T/t$p.fio"
  [ $RC -eq 1 ] || fail "$e: torn write: exit $RC, expected 1: $(tail -n 3 "$T/t$p.out")"
  ffs_check "t$p" --phase 0 --prefix "t$p" --kind none --checked 16
  ffs_check "t$p" --phase 1 --prefix "t$p" --kind torn --agent 0 --logkind torn --count 1 --checked 16
  ffs_verdict "t$p" "t$p.0" 12288 torn
done
grep -q 'kind=torn file=ti.0 off=14336 len=2048' "$FFS_LOG" || fail "io_uring's write was not torn at half"
echo "torn writes: torn at faultfs's block, agent 0 (psync, io_uring)"
