#!/usr/bin/env bash
# A dropped write (faultfs acknowledges it, stores nothing) is caught by
# verify=crc32c read-back on the kernel mount (psync, io_uring; 3 agents,
# the fault only in agent 1's file): on a new file the block reads back as
# unwritten zeroes; over a block an earlier phase wrote, as that phase's
# (stale) generation, written by agent 1. Each is located at the file and
# offset faultfs logged, counted once, and fails the run (exit 1); the
# other agents' blocks all verify.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
rules=()
for e in $ENGINES; do
  p=${e:0:1}
  rules+=("drop,file=z$p.1,off=16k,len=4k" "drop,file=s$p.1,off=16k,len=4k,skip=1")
done
faultfs_mount "${rules[@]}"
for e in $ENGINES; do
  p=${e:0:1}
  ffs_plan "$T/z$p.fio" "z$p" "$e" 1
  ffs_run "z$p" "$T/z$p.fio"
  [ $RC -eq 1 ] || fail "$e: a dropped write: exit $RC, expected 1: $(tail -n 3 "$T/z$p.out")"
  ffs_check "z$p" --prefix "z$p" --kind zeroes --agent 1 --logkind drop --count 1 --checked 16
  ffs_verdict "z$p" "z$p.1" 16384 zeroes
  ffs_plan "$T/s$p.fio" "s$p" "$e" 2
  ffs_run "s$p" "$T/s$p.fio"
  [ $RC -eq 1 ] || fail "$e: a dropped overwrite: exit $RC, expected 1: $(tail -n 3 "$T/s$p.out")"
  ffs_check "s$p" --phase 0 --prefix "s$p" --kind none --checked 16
  ffs_check "s$p" --phase 1 --prefix "s$p" --kind stale_generation --agent 1 --logkind drop --count 1 --checked 16
  ffs_verdict "s$p" "s$p.1" 16384 stale_generation
done
echo "dropped writes: zeroes on a new file, stale generation over an old one, at faultfs's offsets, agent 1 (psync, io_uring)"
