#!/usr/bin/env bash
# A clean run over faultfs (no rule) reports zero problems: 3 agents, two
# verified write phases each, psync and io_uring (iodepth 8), every block
# checked (16 per agent and phase), exit 0, nothing in faultfs's log.
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
[ ! -s "$FFS_LOG" ] || fail "faultfs logged faults with no rule: $(head -n 3 "$FFS_LOG")"
echo "clean over faultfs: 0 problems, 16 blocks per agent and phase checked (psync, io_uring)"
