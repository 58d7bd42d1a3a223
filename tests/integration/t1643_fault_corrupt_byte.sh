#!/usr/bin/env bash
# A flipped byte is a corrupt checksum, located at its block and agent:
# corrupted on the way to storage (faultfs wcorrupt, agent 2's file, a data
# byte) and on the way back (rcorrupt, agent 0's file: the stored block is
# right, the read is not; for io_uring a byte inside the header, whose own
# checksum catches it), on psync (verify=crc32c) and io_uring (verify=md5).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount "wcorrupt,file=wp.2,off=32k,len=4k" "rcorrupt,file=rp.0,off=40k,len=4k" \
  "wcorrupt,file=wi.2,off=32k,len=4k,at=3000" "rcorrupt,file=ri.0,off=40k,len=4k,at=40"
for e in $ENGINES; do
  p=${e:0:1}
  v=crc32c; [ "$e" = io_uring ] && v=md5
  FFS_VERIFY=$v ffs_plan "$T/w$p.fio" "w$p" "$e" 1
  ffs_run "w$p" "$T/w$p.fio"
  [ $RC -eq 1 ] || fail "$e: corrupt write: exit $RC, expected 1: $(tail -n 3 "$T/w$p.out")"
  ffs_check "w$p" --prefix "w$p" --kind corrupt_checksum --agent 2 --logkind wcorrupt --count 1 --checked 16
  ffs_verdict "w$p" "w$p.2" 32768 corrupt_checksum
  FFS_VERIFY=$v ffs_plan "$T/r$p.fio" "r$p" "$e" 1
  ffs_run "r$p" "$T/r$p.fio"
  [ $RC -eq 1 ] || fail "$e: corrupt read: exit $RC, expected 1: $(tail -n 3 "$T/r$p.out")"
  ffs_check "r$p" --prefix "r$p" --kind corrupt_checksum --agent 0 --logkind rcorrupt --count 1 --checked 16
  ffs_verdict "r$p" "r$p.0" 40960 corrupt_checksum
done
grep -q 'kind=rcorrupt file=ri.0 off=41000 len=1' "$FFS_LOG" || fail "the header byte was not the one flipped"
echo "corrupt bytes: corrupt checksum at faultfs's block, on write (agent 2) and on read (agent 0), psync and io_uring"
