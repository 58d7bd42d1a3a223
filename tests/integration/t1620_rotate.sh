#!/usr/bin/env bash
# rotate=K: agent i reads the files agent (i+K) mod N wrote.  Three agents
# write f.<agent> (agent i: (i+1) x 16 KiB); a read phase run by agents 0
# and 1 with rotate=1 must read f.1 and f.2 and leave f.0 alone.  Which
# files were read shows in their access times (relatime: the first read
# after a write moves atime past mtime; the read phase starts 20 ms late so
# the coarse file clock has ticked), how much in the per-agent bytes.
# The dry run names the same files; bad rotate= values are refused.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
# the check reads access times: skip where reads do not move them (noatime)
echo x >"$T/probe"; touch -d '1 hour ago' -a "$T/probe"; cat "$T/probe" >/dev/null
python3 -c 'import os, sys; s = os.stat(sys.argv[1]); sys.exit(s.st_atime_ns > s.st_mtime_ns - 1)' "$T/probe" &&
  skip "reads do not update access times here (noatime)"
plan() {   # $1 = rotate, $2 = agents of the read phase
  cat <<F
[global]
directory=$D
bs=4k
verify=crc32c
filename_format=f.\$agent
[w0]
rw=write
agents=0
size=16k
[w1]
rw=write
agents=1
size=32k
[w2]
rw=write
agents=2
size=48k
[r]
stonewall
rw=read
agents=$2
size=16k
startdelay=20ms
rotate=$1
F
}
read_since_write() {  # per file of $D/f.0..2: 1 when read after its last write
  python3 -c 'import os, sys
print("".join("1" if os.stat(f).st_atime_ns > os.stat(f).st_mtime_ns else "0" for f in sys.argv[1:]))' \
    "$D/f.0" "$D/f.1" "$D/f.2"
}
refused() {  # $1 = plan, $2 = the expected message: exit 2 and one line
  local rc; timeout 30 "$NFSTORM" run --local 1 --dry-run "$1" >"$T/out" 2>&1; rc=$?
  [ $rc -eq 2 ] || fail "$1: exit $rc, want 2: $(head -c 300 "$T/out")"
  grep -q -- "$2" "$T/out" || fail "$1: no '$2' in: $(head -c 300 "$T/out")"
  [ "$(grep -c . "$T/out")" -eq 1 ] || fail "$1: error is not one line: $(head -c 300 "$T/out")"
}
plan 1 0-1 >"$T/p1.fio"
timeout 30 "$NFSTORM" run --local 3 --dry-run "$T/p1.fio" >"$T/dry" 2>&1 || fail "dry run: $(tail -n1 "$T/dry")"
got=$(awk '/^phase 2/{p=1} p && /thread 0/{print $NF}' "$T/dry" | tr '\n' ' ')
[ "$got" = "$D/f.1 $D/f.2 " ] || fail "dry run of rotate=1 names '$got', want f.1 (agent 0) and f.2 (agent 1)"
grep -q "job r: rw=read rotate=1 " "$T/dry" || fail "dry run does not show rotate=1"

timeout 60 "$NFSTORM" run --local 3 --quiet --json "$T/r1.json" "$T/p1.fio" >"$T/o" 2>&1 || fail "rotate=1: $(tail -n2 "$T/o")"
seen=$(read_since_write)
[ "$seen" = "011" ] || fail "rotate=1 read f.0 f.1 f.2 = $seen (1 = read after written), want 011"
py "$T/r1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
w, rd = r["phases"][0], r["phases"][1]
wrote = {a["id"]: a["ops"]["write"]["bytes"] for a in w["agents"]}
assert wrote == {0: 16384, 1: 32768, 2: 49152}, wrote
got = {a["id"]: a["ops"]["read"]["bytes"] for a in rd["agents"] if "read" in a["ops"]}
assert got == {0: 16384, 1: 16384}, got
assert rd["ops"]["read"]["errors"] == 0, rd["ops"]["read"]
# verified against the source agent as the writer of every block: all ok
# (an expected writer of the reading agent itself would be 8 wrong_writer)
v = rd["verify"]
assert v["checked"] == 8 and v["ok"] == 8 and v["wrong_writer"] == 0, v
for a in rd["agents"][:2]:
    assert a["verify"]["checked"] == 4 and a["verify"]["ok"] == 4, (a["id"], a["verify"])
PY

# rotate=2 from agent 0 alone: (0+2) mod 3 = agent 2's file, nothing else
plan 2 0 >"$T/p2.fio"
timeout 60 "$NFSTORM" run --local 3 --quiet --json "$T/r2.json" "$T/p2.fio" >"$T/o" 2>&1 || fail "rotate=2: $(tail -n2 "$T/o")"
seen=$(read_since_write)
[ "$seen" = "001" ] || fail "rotate=2 on agent 0 read f.0 f.1 f.2 = $seen, want 001"

# rotate=3 of 3 agents is no rotation: agent 0 reads its own f.0
plan 3 0 >"$T/p3.fio"
timeout 60 "$NFSTORM" run --local 3 --quiet --json "$T/r3.json" "$T/p3.fio" >"$T/o" 2>&1 || fail "rotate=3: $(tail -n2 "$T/o")"
seen=$(read_since_write)
[ "$seen" = "100" ] || fail "rotate=3 (= N) on agent 0 read f.0 f.1 f.2 = $seen, want 100"

# refusals: one line naming the key, exit 2
printf '[x]\nrw=read\nsize=16k\nrotate=70000\n' >"$T/bad1.fio"
refused "$T/bad1.fio" "rotate must be 0..65535"
printf '[x]\nrw=read\nsize=16k\ndirectory=%s/${host}\nrotate=1\n' "$D" >"$T/bad2.fio"
refused "$T/bad2.fio" "rotate= cannot name another agent"
printf '[x]\nrw=metadata\nmd_ops=create\nnrfiles=4\nrotate=1\n' >"$T/bad3.fio"
refused "$T/bad3.fio" "rotate= does not apply to rw=metadata"
echo "rotate: agent i reads agent (i+K) mod N's files (K=1, 2, N), refusals named"
