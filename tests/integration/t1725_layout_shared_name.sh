#!/usr/bin/env bash
# t1725: a file a job reads is never shorter than the job's region.  A
# filename= without ${agent} on two agents:
#   - with different --allow roots it names a file per agent: each agent lays
#     its own out (before, only agent 0 did and agent 1 read a 0-byte file,
#     every op failing)
#   - with one root it is one file: laid out once, by whichever agent locks
#     it first (the bytes the two agents wrote, /proc/PID/io wchar, add up
#     to one layout, not two)
source "$(dirname "$0")/lib.sh"
M=$((8 << 20))
mkdir -p "$T/r0" "$T/r1" "$T/one"

check() {   # JSON: two agents, reads and no failed op on either
  py "$1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
rd = p["ops"]["read"]
assert rd["errors"] == 0, "failed reads: %s" % rd["errors"]
ops = [a["ops"]["read"]["ops"] for a in p["agents"]]
assert len(ops) == 2 and all(n > 0 for n in ops), "reads per agent: %s" % ops
PY
}
job=(--name=x --rw=randread --ioengine=psync --bs=4k --size=8m --number_ios=64 --filename=f.dat)

# per-agent roots: a file each
start_agent "$T/r0"; A0=$AGENT_ADDR
start_agent "$T/r1"; A1=$AGENT_ADDR
timeout 60 "$NFSTORM" run --agents "$A0,$A1" --quiet --json "$T/a.json" "${job[@]}" >"$T/a.out" 2>&1 ||
  fail "per-agent roots: $(tail -n3 "$T/a.out")"
for r in r0 r1; do
  [ "$(stat -c %s "$T/$r/f.dat")" -eq $M ] || fail "$r/f.dat is $(stat -c %s "$T/$r/f.dat") bytes, want $M"
  [ $(( $(stat -c '%b * %B' "$T/$r/f.dat") )) -ge $M ] || fail "$r/f.dat is not laid out with data"
done
check "$T/a.json"

# one root: one file, laid out once
start_agent "$T/one"; B0=$AGENT_ADDR; P0=$AGENT_PID
start_agent "$T/one"; B1=$AGENT_ADDR; P1=$AGENT_PID
timeout 60 "$NFSTORM" run --agents "$B0,$B1" --quiet --json "$T/b.json" "${job[@]}" >"$T/b.out" 2>&1 ||
  fail "one root: $(tail -n3 "$T/b.out")"
[ "$(stat -c %s "$T/one/f.dat")" -eq $M ] || fail "one/f.dat is $(stat -c %s "$T/one/f.dat") bytes, want $M"
check "$T/b.json"
w0=$(sed -n 's/^wchar: //p' "/proc/$P0/io"); w1=$(sed -n 's/^wchar: //p' "/proc/$P1/io")
# one layout is 8 MiB of pwrite; the agents' messages add a little
[ $((w0 + w1)) -ge $M ] && [ $((w0 + w1)) -lt $((M + M / 2)) ] ||
  fail "the shared file was not laid out once: the agents wrote $w0 + $w1 bytes for an $M-byte file"
echo "t1725: PASS (agents wrote $w0 + $w1 bytes)"
