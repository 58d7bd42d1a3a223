#!/usr/bin/env bash
# t1724: fio lays a file out with data for every job that reads (rw=rw,
# randrw, including randrw rwmixread=100) and for overwrite=1; nfstorm does
# the same on the kernel-mount engines.  Fresh files, read back with
# filefrag (no unwritten extent) and stat (blocks for the whole size):
#   - randrw rwmixread=100 libaio direct=1 (fallocate=native, the default):
#     before, one unwritten extent the file system answered without I/O
#   - rw=rw fallocate=none psync: before, a sparse file
#   - rw=write overwrite=1 fallocate=none: laid out with data (before, the
#     key was refused); overwrite=0 is accepted without a word and, like
#     fio, leaves a write job's file sized but without data
# The space check counts the whole region such a job lays out (not only
# its few writes: number_ios=1 on a 16 MiB tmpfs refuses a 32 MiB mix
# before writing, instead of filling the disk during layout).  And
# --dry-run says per job what will be laid out.
source "$(dirname "$0")/lib.sh"
command -v filefrag >/dev/null 2>&1 || skip "filefrag is not installed"
D=$T/d; mkdir -p "$D"
start_agent "$D"
M=$((8 << 20))

run() {   # NAME ARGS...: one short job on a new 8 MiB file D/NAME
  local name=$1; shift
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name="$name" --bs=4k --size=8m \
    --number_ios=16 --filename="$D/$name" "$@" >"$T/$name.out" 2>&1 || fail "$name: $(tail -n3 "$T/$name.out")"
}
unwritten() { filefrag -v "$1" | grep -c unwritten; }
blocks() { echo $(( $(stat -c '%b * %B' "$1") )); }

# a file system that cannot say which extents are unwritten cannot fail the check
fallocate -l 1m "$T/probe" 2>/dev/null && [ "$(unwritten "$T/probe")" -gt 0 ] ||
  skip "filefrag shows no unwritten extents on $T's file system"

run mix100 --rw=randrw --rwmixread=100 --ioengine=libaio --direct=1
[ "$(unwritten "$D/mix100")" -eq 0 ] || fail "randrw rwmixread=100: unwritten extents: $(filefrag -v "$D/mix100" | tail -n +4)"
[ "$(blocks "$D/mix100")" -ge $M ] || fail "randrw rwmixread=100: $(blocks "$D/mix100") bytes allocated, want $M"

run rw50 --rw=rw --fallocate=none
[ "$(blocks "$D/rw50")" -ge $M ] || fail "rw=rw: $(blocks "$D/rw50") bytes allocated (sparse), want $M"
# the layout's bytes are the job's buffers, not zeroes
[ "$(head -c 4096 "$D/rw50" | tr -d '\0' | wc -c)" -gt 0 ] || fail "rw=rw: the first block is zeroes"

run ow1 --rw=write --overwrite=1 --fallocate=none
[ "$(blocks "$D/ow1")" -ge $M ] || fail "overwrite=1: $(blocks "$D/ow1") bytes allocated, want $M"

run ow0 --rw=write --overwrite=0 --fallocate=none
[ "$(stat -c %s "$D/ow0")" -eq $M ] || fail "overwrite=0: size $(stat -c %s "$D/ow0")"
[ "$(blocks "$D/ow0")" -le $((1 << 20)) ] || fail "overwrite=0: $(blocks "$D/ow0") bytes allocated, want a sparse file"
grep -qi "overwrite" "$T/ow0.out" && fail "overwrite=0 says something: $(cat "$T/ow0.out")"
printf '[j]\nrw=write\nsize=1m\noverwrite=0\n' >"$T/ow0.fio"
"$NFSTORM" run --fio-compat-report "$T/ow0.fio" >"$T/compat" 2>&1 || fail "compat report: $(tail -n2 "$T/compat")"
grep -Eq 'overwrite=0 +implemented' "$T/compat" || fail "compat report: $(grep overwrite "$T/compat")"

# a mix's layout needs its whole region free
S=$T/small; mkdir -p "$S"
if mount -t tmpfs -o size=16m tmpfs "$S" 2>/dev/null; then
  trap 'umount "$S" 2>/dev/null; cleanup' EXIT
  start_agent "$S"
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=big --rw=randrw --bs=4k --size=32m \
    --number_ios=1 --fallocate=none --directory="$S" >"$T/big.out" 2>&1 && fail "a 32 MiB mix on 16 MiB ran"
  grep -Eq "job 'big': not enough space: needs 32MiB, 1[56](\.[0-9]+)?MiB free on $S" "$T/big.out" ||
    fail "a 32 MiB mix on 16 MiB: $(tail -n2 "$T/big.out")"
  [ -z "$(ls -A "$S")" ] || fail "the refused mix left files: $(ls -l "$S")"
else
  echo "(no tmpfs mount here: the space check's case is not run)"
fi

# --dry-run tells which of the three each job gets
dry() { "$NFSTORM" run --dry-run --local 1 --name=j --bs=4k --size=64m "$@" 2>&1 | sed -n 's/^ *layout: //p'; }
[ "$(dry --rw=randrw --rwmixread=100)" = "lays out 64MiB per file with data (the job reads), where a file is missing or shorter" ] ||
  fail "dry-run randrw: '$(dry --rw=randrw --rwmixread=100)'"
[ "$(dry --rw=write --overwrite=1)" = "lays out 64MiB per file with data (overwrite=1), where a file is missing or shorter" ] ||
  fail "dry-run overwrite=1: '$(dry --rw=write --overwrite=1)'"
[ "$(dry --rw=write)" = "preallocates 64MiB per file (no data; fallocate=native)" ] ||
  fail "dry-run write: '$(dry --rw=write)'"
[ "$(dry --rw=write --fallocate=none)" = "sizes to 64MiB per file, sparse (no data; fallocate=none)" ] ||
  fail "dry-run write fallocate=none: '$(dry --rw=write --fallocate=none)'"
[ "$(dry --rw=randread --verify=crc32c --verify_only=1)" = "none (verify_only reads the files as they are)" ] ||
  fail "dry-run verify_only: '$(dry --rw=randread --verify=crc32c --verify_only=1)'"
[ "$(dry --rw=randrw --ioengine=null)" = "none (ioengine=null has no files)" ] ||
  fail "dry-run null: '$(dry --rw=randrw --ioengine=null)'"
echo "t1724: PASS"
