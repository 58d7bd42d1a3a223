#!/usr/bin/env bash
# Several faults in one file, wherever they land: faultfs drops every 5th
# write of agent 0's file (io_uring, 8 in flight: which blocks depends on
# the order the writes arrive) and flips a byte in every 4th read of agent
# 2's file (psync); verify reports exactly the blocks faultfs logged (3
# zeroes, 4 corrupt checksums), no more, in the right agent.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount "drop,file=ni.0,every=5" "rcorrupt,file=np.2,every=4"
ffs_plan "$T/ni.fio" ni io_uring 1
ffs_run ni "$T/ni.fio"
[ $RC -eq 1 ] || fail "io_uring: every 5th write dropped: exit $RC, expected 1: $(tail -n 3 "$T/ni.out")"
ffs_check ni --prefix ni --kind zeroes --agent 0 --logkind drop --count 3 --checked 16
ffs_plan "$T/np.fio" np psync 1
ffs_run np "$T/np.fio"
[ $RC -eq 1 ] || fail "psync: every 4th read corrupted: exit $RC, expected 1: $(tail -n 3 "$T/np.out")"
ffs_check np --prefix np --kind corrupt_checksum --agent 2 --logkind rcorrupt --count 4 --checked 16
grep -q "verify: 4 of 16 blocks bad (4 corrupt_checksum)" "$T/np.out" || fail "text verdict: $(grep '^verdict' "$T/np.out")"
echo "every Nth: 3 dropped writes (io_uring) and 4 corrupted reads (psync) found exactly where faultfs put them"
