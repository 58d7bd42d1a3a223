#!/usr/bin/env bash
# A write dropped over a block the PREVIOUS RUN wrote must be caught as a
# stale generation, even when both runs start within the same second (runs
# of a test or a script loop do): run a writes agent 1's file, run b writes
# it again and faultfs drops b's write at 16 KiB, so b's read-back finds a's
# block there.  The two runs start right after a second boundary, so they
# share it unless they are slow.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount "drop,file=xp.1,off=16k,len=4k,skip=1"
ffs_plan "$T/x.fio" xp psync 1
python3 -c 'import time; time.sleep(1 - time.time() % 1 + 0.01)'
ffs_run a "$T/x.fio"
[ $RC -eq 0 ] || fail "first run: exit $RC: $(tail -n 3 "$T/a.out")"
ffs_run b "$T/x.fio"
ffs_check b --prefix xp --kind stale_generation --agent 1 --logkind drop --count 1 --checked 16
[ $RC -eq 1 ] || fail "a dropped overwrite of the last run's block: exit $RC, expected 1"
ffs_verdict b xp.1 16384 stale_generation
echo "a write dropped over the previous run's block: stale generation at faultfs's offset, agent 1"
