#!/usr/bin/env bash
# Shared-file write contention over faultfs: 3 agents write interleaved
# 64 KiB regions of one file (offset_increment=64k), twice, each reading its
# region back (verify=crc32c).  A write lost in agent 2's region (psync) is
# agent 2's stale generation; a write torn in agent 1's region (io_uring) is
# torn with agent 1's header: each at faultfs's offset, in the shared file,
# and no other agent's region is touched.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount "drop,file=sd.dat,off=$((2 * 65536 + 16384)),len=4k,skip=1" \
  "torn,file=st.dat,off=$((65536 + 8192)),len=4k,skip=1,keep=1k"
shared_plan() {  # NAME ENGINE
  printf '[global]\ndirectory=%s\nfilename=%s\nbs=4k\nsize=64k\noffset_increment=64k\n' "$FFS_M" "$1"
  printf 'ioengine=%s\niodepth=4\nverify=crc32c\ndo_verify=1\n[w1]\nrw=write\n[w2]\nstonewall\nrw=write\n' "$2"
}
shared_plan sd.dat psync >"$T/sd.fio"
shared_plan st.dat io_uring >"$T/st.fio"
ffs_run sd "$T/sd.fio"
[ $RC -eq 1 ] || fail "psync: a lost write in a shared file: exit $RC, expected 1: $(tail -n 3 "$T/sd.out")"
ffs_check sd --phase 0 --prefix sd --kind none --checked 16
ffs_check sd --phase 1 --prefix sd --kind stale_generation --agent 2 --logkind drop --count 1 --checked 16
ffs_verdict sd sd.dat $((2 * 65536 + 16384)) stale_generation
ffs_run st "$T/st.fio"
[ $RC -eq 1 ] || fail "io_uring: a torn write in a shared file: exit $RC, expected 1: $(tail -n 3 "$T/st.out")"
ffs_check st --phase 0 --prefix st --kind none --checked 16
ffs_check st --phase 1 --prefix st --kind torn --agent 1 --logkind torn --count 1 --checked 16
ffs_verdict st st.dat $((65536 + 8192)) torn
[ "$(stat -c %s "$FFS_B/sd.dat")" -eq $((3 * 65536)) ] || fail "shared file is $(stat -c %s "$FFS_B/sd.dat") bytes"
echo "shared file: agent 2's lost write and agent 1's torn write found in their regions at faultfs's offsets"
