#!/usr/bin/env bash
# fio's file rules on a real agent: a job without size reads its existing
# file's size (and names the file when it is missing); allow_file_create=0
# refuses to create a file; randrepeat=1 (the default) writes the same
# random blocks every run, randrepeat=0 other ones; a random pass covers
# every block once, with norandommap some repeat.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
head -c $((3 * 1024 * 1024)) /dev/zero >"$D/have.dat"
run() { timeout 60 "$NFSTORM" run --local 1 --quiet "$@" >"$T/o" 2>&1; }

# size from the file: 3 MiB at 64k = 48 reads, nothing laid out
run --json "$T/r.json" --name=fromfile --directory="$D" --filename=have.dat --rw=read --bs=64k \
  || fail "sized by its file: $(tail -n2 "$T/o")"
py "$T/r.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["phases"][0]["ops"]["read"]
assert (o["ops"], o["bytes"]) == (48, 3 << 20), (o["ops"], o["bytes"])
PY
"$NFSTORM" run --dry-run --name=fromfile --directory="$D" --filename=have.dat --rw=read >"$T/dry" 2>&1
grep -q "size=(the existing file's, 1 file)" "$T/dry" || fail "dry run: $(grep fromfile "$T/dry")"

# ... and the error when there is no file to size it from
run --name=nofile --directory="$D" --filename=none.dat --rw=read && fail "a missing file was accepted"
grep -q "job 'nofile': no size= and a file to size it from is missing: $D/none.dat: open failed: No such file or directory (create the file or set size=)" "$T/o" \
  || fail "missing file: $(tail -n2 "$T/o")"
[ -e "$D/none.dat" ] && fail "none.dat was created"
# no size and no filename: a plan error before anything runs
"$NFSTORM" run --local 1 --quiet --name=nosize --rw=read >"$T/o" 2>&1; rc=$?
[ $rc = 2 ] || fail "no size, no file: exit $rc"
grep -q "job 'nosize': size is required" "$T/o" || fail "$(cat "$T/o")"

# allow_file_create=0
run --name=nocreate --directory="$D" --filename=new.dat --rw=write --size=64k --allow_file_create=0 \
  && fail "allow_file_create=0 created a file"
grep -q "job 'nocreate': allow_file_create=0 and a file is missing: $D/new.dat" "$T/o" || fail "$(tail -n2 "$T/o")"
[ -e "$D/new.dat" ] && fail "new.dat exists"
run --name=nocreate --directory="$D" --filename=have.dat --rw=write --size=64k --allow_file_create=0 \
  || fail "allow_file_create=0 on an existing file: $(tail -n2 "$T/o")"

# randrepeat: which of the 256 blocks 8 random writes hit, over runs
blocks() {
  rm -f "$D"/rr.*
  run --name=rr --directory="$D" --rw=randwrite --bs=4k --size=1m --number_ios=8 --buffer_pattern=0xab "$@" \
    || fail "randwrite: $(tail -n2 "$T/o")"
  python3 - "$D"/rr.* <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
print(",".join(str(i // 4096) for i in range(0, len(d), 4096) if d[i] == 0xab))
PY
}
a=$(blocks); b=$(blocks)
[ "$a" = "$b" ] || fail "randrepeat=1: $a then $b"
[ "$(echo "$a" | tr ',' '\n' | wc -l)" = 8 ] || fail "8 writes hit $a"
c=$(blocks --randrepeat=0)
[ "$a" != "$c" ] || fail "randrepeat=0 repeated $a"

# one random pass covers every block once; norandommap lets blocks repeat
cover() {
  rm -f "$D"/nm.*
  run --name=nm --directory="$D" --rw=randwrite --bs=4k --size=1m --number_ios=256 --buffer_pattern=0xcd "$@" \
    || fail "randwrite: $(tail -n2 "$T/o")"
  python3 - "$D"/nm.* <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
print(sum(1 for i in range(0, len(d), 4096) if d[i] == 0xcd))
PY
}
[ "$(cover)" = 256 ] || fail "a random pass missed blocks"
n=$(cover --norandommap)
[ "$n" -ge 130 ] && [ "$n" -le 200 ] || fail "norandommap covered $n of 256 blocks (want about 162)"
# zoned_abs zones past the job's region: refused by the agent, as fio
run --name=za --directory="$D" --rw=randwrite --size=1m --random_distribution=zoned_abs:50/1m:50/1m \
  && fail "zoned_abs zones past the region ran"
grep -q "job 'za': random_distribution=zoned_abs:50/1m:50/1m: the zones pass the end of the job's region (1048576 bytes)" "$T/o" \
  || fail "$(tail -n2 "$T/o")"
echo "file rules, randrepeat and norandommap as fio"
