#!/usr/bin/env bash
# Stale reads (faultfs serves a block's previous content for 1.5 s after a
# write) are caught by do_verify's read-back as the previous phase's
# generation, located at the block faultfs logged, in agent 2's file only,
# on psync and io_uring; once the delay has passed, a verify_only run over
# the same files finds every block right: the fault was the cache, not the
# stored data.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
rules=()
for e in $ENGINES; do rules+=("stale,file=c${e:0:1}.2,off=8k,len=4k,skip=1,ms=1500"); done
faultfs_mount "${rules[@]}"
for e in $ENGINES; do
  p=${e:0:1}
  ffs_plan "$T/c$p.fio" "c$p" "$e" 2
  ffs_run "c$p" "$T/c$p.fio"
  [ $RC -eq 1 ] || fail "$e: stale read-back: exit $RC, expected 1: $(tail -n 3 "$T/c$p.out")"
  ffs_check "c$p" --phase 0 --prefix "c$p" --kind none --checked 16
  ffs_check "c$p" --phase 1 --prefix "c$p" --kind stale_generation --agent 2 --logkind stale --count 1 --checked 16
  ffs_verdict "c$p" "c$p.2" 8192 stale_generation
done
grep -q 'kind=stale-read file=ci.2 off=8192 len=4096' "$FFS_LOG" || fail "faultfs served no stale read to io_uring"
sleep 3         # well past the 1.5 s stale window
sed -e 's/^do_verify=1/verify_only=1/' "$T/cp.fio" | sed '/^\[w2\]/,$d' >"$T/after.fio"
ffs_run after "$T/after.fio"
[ $RC -eq 0 ] || fail "verify_only after the delay: exit $RC: $(tail -n 3 "$T/after.out")"
ffs_check after --prefix cp --kind none --checked 16
echo "stale cache: stale generation at faultfs's block, agent 2 (psync, io_uring); right once the delay passed"
