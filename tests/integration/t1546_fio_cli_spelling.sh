#!/usr/bin/env bash
# Command lines copied from fio run unchanged (issue 22, items 1, 2, 3, 5):
# fio's "--key value" spelling (a key that takes a value joins the next word;
# a flag never does), several job files run one after the other (each after
# the first behind a stonewall, its [global] its own, as fio 3.33 runs them),
# fio's program options that change nothing accepted with one warning each,
# --client pointed at --hosts, a "host,port" hosts line, verify=0, 1Mi units.
# Each case runs for real; bytes and op counts are checked in the JSON.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
ops() {   # ops JSON PHASE OP FIELD
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][int(sys.argv[2])]; print(p["ops"].get(sys.argv[3], {}).get(sys.argv[4], 0))' "$@"
}
nphases() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["phases"]))' "$1"; }

# 1. --key value: 1 MiB written in 64 KiB ops (16), the flag --time_based not taking the job file after it
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r1.json" --name t1 --size 1m --rw write --bs 64k \
  --filename "$D/f1" >"$T/o" 2>&1 || fail "--key value: $(cat "$T/o")"
[ "$(ops "$T/r1.json" 0 write ops)" = 16 ] || fail "--key value: $(ops "$T/r1.json" 0 write ops) writes, want 16"
[ "$(ops "$T/r1.json" 0 write bytes)" = 1048576 ] || fail "--key value: bytes $(ops "$T/r1.json" 0 write bytes)"
[ "$(stat -c %s "$D/f1")" = 1048576 ] || fail "--key value: file is $(stat -c %s "$D/f1") bytes"
printf '[tb]\nioengine=null\nrw=read\nbs=4k\nsize=1m\nruntime=300ms\n' >"$T/tb.fio"
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r1b.json" --time_based "$T/tb.fio" >"$T/o" 2>&1 ||
  fail "--time_based before a job file: $(cat "$T/o")"
[ "$(ops "$T/r1b.json" 0 read ops)" -gt 256 ] || fail "--time_based did not apply (or ate the job file)"

# 2. two job files: a.fio writes 1 MiB in 64 KiB ops; b.fio reads back 512 KiB at fio's default bs (4k:
#    a.fio's [global] bs=64k is a.fio's alone), in a phase of its own after a.fio's
printf '[global]\nbs=64k\n[a]\nrw=write\nsize=1m\nfilename=%s/shared\n' "$D" >"$T/a.fio"
printf '[b]\nrw=read\nsize=512k\nfilename=%s/shared\n' "$D" >"$T/b.fio"
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r2.json" "$T/a.fio" "$T/b.fio" >"$T/o" 2>&1 ||
  fail "two job files: $(cat "$T/o")"
[ "$(nphases "$T/r2.json")" = 2 ] || fail "two job files: $(nphases "$T/r2.json") phases, want 2"
[ "$(ops "$T/r2.json" 0 write ops)" = 16 ] || fail "a.fio: $(ops "$T/r2.json" 0 write ops) writes"
[ "$(ops "$T/r2.json" 1 read ops)" = 128 ] || fail "b.fio: $(ops "$T/r2.json" 1 read ops) reads, want 128 (bs 4k)"
[ "$(ops "$T/r2.json" 1 read bytes)" = 524288 ] || fail "b.fio: read bytes $(ops "$T/r2.json" 1 read bytes)"
expect_fail "pool with two files" "^nfstorm: --pool takes one job file \(2 given\)" \
  "$NFSTORM" run --pool 127.0.0.1:1 --secret-file /dev/null "$T/a.fio" "$T/b.fio"

# 3. fio's program options that change nothing: one warning each, the run as without them
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r3.json" --eta-newline=1 --eta-interval 2 --idle-prof=system \
  --warnings-fatal --debug=io --alloc-size 2048 --aux-path "$T" --append-terse --bandwidth-log \
  --name=n --ioengine=null --rw=read --bs=4k --size=256k >"$T/o" 2>&1 || fail "fio program options: $(cat "$T/o")"
[ "$(grep -c 'changes nothing in nfstorm' "$T/o")" = 9 ] || fail "want 9 warnings: $(cat "$T/o")"
[ "$(ops "$T/r3.json" 0 read ops)" = 64 ] || fail "with fio's program options: $(ops "$T/r3.json" 0 read ops) reads"
expect_fail "--client" "^nfstorm: --client is fio's client/server mode: give nfstorm's agents with --hosts FILE" \
  "$NFSTORM" run --client=hosts.list --name=n --size=1m

# 4. a fio host list line "host,port" is read as host:port
start_agent "$D"
port=${AGENT_ADDR##*:}
printf '127.0.0.1,%s\n' "$port" >"$T/fiohosts"
timeout 60 "$NFSTORM" run --hosts "$T/fiohosts" --quiet --json "$T/r4.json" --name=h --ioengine=null --rw=read \
  --bs=4k --size=64k >"$T/o" 2>&1 || fail "host,port hosts line: $(cat "$T/o")"
[ "$(ops "$T/r4.json" 0 read ops)" = 16 ] || fail "host,port: $(ops "$T/r4.json" 0 read ops) reads"

# 5. verify=0 (fio's "no verification") and 1Mi units
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r5.json" --name=v --rw=write --bs=1Mi --size=4Mi \
  --verify=0 --filename="$D/f5" >"$T/o" 2>&1 || fail "verify=0, 1Mi: $(cat "$T/o")"
[ "$(ops "$T/r5.json" 0 write ops)" = 4 ] || fail "bs=1Mi size=4Mi: $(ops "$T/r5.json" 0 write ops) writes, want 4"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][0]; sys.exit("verify" in p and p["verify"].get("checked", 0) > 0)' \
  "$T/r5.json" || fail "verify=0 verified"
# 6. --local: relative names are beneath the current directory, as fio puts them (issue 22, item 7)
mkdir -p "$T/cwd"
( cd "$T/cwd" && timeout 60 "$NFSTORM" run --local 1 --quiet --name=rel --rw=write --bs=64k --size=256k \
  --filename=rel.dat >"$T/o" 2>&1 ) || fail "relative filename with --local: $(cat "$T/o")"
[ "$(stat -c %s "$T/cwd/rel.dat" 2>/dev/null)" = 262144 ] || fail "relative filename: not written in the current directory"
( cd "$T/cwd" && timeout 60 "$NFSTORM" run --local 1 --dry-run --name=rel --size=256k --directory=sub ) >"$T/o" 2>&1
grep -q "thread 0 (job 0): $T/cwd/sub/rel.0.0.0" "$T/o" || fail "dry-run of a relative directory: $(cat "$T/o")"

# an absolute filename_format: --local allows its directory, as it does a filename's
timeout 60 "$NFSTORM" run --local 2 --quiet --name=ff --rw=write --bs=64k --size=64k \
  --filename_format="$T/ff/f.\$agent" >"$T/o" 2>&1 || fail "absolute filename_format with --local: $(cat "$T/o")"
[ "$(ls "$T/ff" | tr '\n' ' ')" = "f.0 f.1 " ] || fail "filename_format files: $(ls "$T/ff")"

# 7. a block device is refused by the agent, naming it (rw=read: nothing is ever written to it)
if mknod "$T/blk" b 7 7 2>/dev/null; then
  start_agent "$T"
  expect_fail "block device" "plan refused: $T/blk is a block device: nfstorm works on files" \
    "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=b --rw=read --bs=4k --size=64k --filename="$T/blk"
fi
echo "ok: --key value, two job files in order, 9 fio program options ignored with a warning, host,port, verify=0, 1Mi, relative names under --local, block devices refused"
