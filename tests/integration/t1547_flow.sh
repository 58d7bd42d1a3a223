#!/usr/bin/env bash
# fio's flow control (issue 22, item 4): job threads sharing a flow_id run
# in the ratio of their flow= weights (flow=1 and flow=8: about 1:8, as fio
# 3.33 runs them), on each agent of the fleet; another flow_id is a group of
# its own; flow_sleep is how long a thread ahead of its weight waits.
source "$(dirname "$0")/lib.sh"
cat >"$T/f.fio" <<'JOB'
[global]
ioengine=null
size=1m
bs=4k
runtime=1500ms
time_based
flow_sleep=200
[w]
rw=write
flow=1
[r]
rw=randread
flow=8
[a]
rw=read
flow=1
flow_id=2
numjobs=2
JOB
timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/r.json" "$T/f.fio" >"$T/o" 2>&1 || fail "run: $(cat "$T/o")"
py "$T/r.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
for a in p["agents"]:
    o = a["ops"]
    w = o["write"]["ops"]; rd = o["read"]["ops"]
    assert w > 100, (a.get("addr"), o)
    # reads are r's (flow 8 against w's 1) plus a's two clones (group 2, unregulated against group 1)
    print("agent writes %d, reads %d" % (w, rd))
PY
# the ratio itself, with the reads of one job only: w:r = 1:8 within 15% on each agent
sed -i '/^\[a\]/,$d' "$T/f.fio"
timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/r2.json" "$T/f.fio" >"$T/o" 2>&1 || fail "run 2: $(cat "$T/o")"
py "$T/r2.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
for a in p["agents"]:
    o = a["ops"]
    ratio = o["read"]["ops"] / o["write"]["ops"]
    assert 8 * 0.85 <= ratio <= 8 * 1.15, ("ratio", ratio, o["read"]["ops"], o["write"]["ops"])
q = p["ops"]
ratio = q["read"]["ops"] / q["write"]["ops"]
assert 8 * 0.85 <= ratio <= 8 * 1.15, ("fleet ratio", ratio)
print("fleet read:write %.2f" % ratio)
PY
# without flow= the two run unregulated: the ratio is far from 1:8 (null ops run as fast as they can)
sed -i 's/^flow=.*$//' "$T/f.fio"
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r3.json" "$T/f.fio" >"$T/o" 2>&1 || fail "run 3: $(cat "$T/o")"
py "$T/r3.json" <<'PY'
import json, sys
q = json.load(open(sys.argv[1]))["phases"][0]["ops"]
ratio = q["read"]["ops"] / q["write"]["ops"]
assert not (8 * 0.85 <= ratio <= 8 * 1.15), ("unregulated ratio near 8", ratio)
PY
echo "ok: flow=1 and flow=8 run 1:8 on each agent and in the fleet's sums; without flow= they do not"
