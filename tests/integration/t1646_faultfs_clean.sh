#!/usr/bin/env bash
# A clean run over faultfs (no rule) reports zero problems: 3 agents, two
# verified write phases each, psync and io_uring (iodepth 8), every block
# checked (16 per agent and phase), exit 0, nothing in faultfs's log; also
# direct=1 with verify=sha256 (psync) and verify=md5 (io_uring).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount
for e in $ENGINES; do
  p=${e:0:1}
  ffs_plan "$T/k$p.fio" "k$p" "$e" 2
  ffs_run "k$p" "$T/k$p.fio"
  [ $RC -eq 0 ] || fail "$e: clean run: exit $RC: $(tail -n 3 "$T/k$p.out")"
  ffs_check "k$p" --phase 0 --prefix "k$p" --kind none --checked 16
  ffs_check "k$p" --phase 1 --prefix "k$p" --kind none --checked 16
done
# O_DIRECT through faultfs, and the other checksums
FFS_VERIFY=sha256 ffs_plan "$T/kd.fio" kd psync 1 direct=1
FFS_VERIFY=md5 ffs_plan "$T/km.fio" km io_uring 1
for n in kd km; do
  ffs_run "$n" "$T/$n.fio"
  [ $RC -eq 0 ] || fail "$n: clean run: exit $RC: $(tail -n 3 "$T/$n.out")"
  ffs_check "$n" --prefix "$n" --kind none --checked 16
done
[ ! -s "$FFS_LOG" ] || fail "faultfs logged faults with no rule: $(head -n 3 "$FFS_LOG")"
echo "clean over faultfs: 0 problems, 16 blocks per agent and phase checked (psync, io_uring)"
