#!/usr/bin/env bash
# Attribution across clients: each agent writes its file and reads it back
# (right), then with rotate=1 agent 1 reads agent 2's file and faultfs spoils
# that second read of one block (zeroes for psync, a flipped byte for
# io_uring): agent 1 reports it at faultfs's offset, in agent 2's file,
# expected from writer 2; every other block of the phase verifies.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount "zeroes,file=rp.2,off=16k,len=4k,skip=1" "rcorrupt,file=ri.2,off=8k,len=4k,skip=1"
ffs_plan "$T/rp.fio" rp psync 1
ffs_plan "$T/ri.fio" ri io_uring 1
for f in "$T/rp.fio" "$T/ri.fio"; do printf '[readback]\nstonewall\nrw=read\nrotate=1\n' >>"$f"; done
ffs_run rp "$T/rp.fio"
[ $RC -eq 1 ] || fail "psync: exit $RC, expected 1: $(tail -n 3 "$T/rp.out")"
ffs_check rp --phase 0 --prefix rp --kind none --checked 16
ffs_check rp --phase 1 --prefix rp --kind zeroes --agent 1 --writer 2 --logkind zeroes --count 1 --checked 16
ffs_verdict rp rp.2 16384 zeroes
ffs_run ri "$T/ri.fio"
[ $RC -eq 1 ] || fail "io_uring: exit $RC, expected 1: $(tail -n 3 "$T/ri.out")"
ffs_check ri --phase 0 --prefix ri --kind none --checked 16
ffs_check ri --phase 1 --prefix ri --kind corrupt_checksum --agent 1 --writer 2 --logkind rcorrupt --count 1 --checked 16
ffs_verdict ri ri.2 8192 corrupt_checksum
echo "rotate=1: faults in agent 2's file reported by agent 1 against writer 2, at faultfs's offsets (psync, io_uring)"
