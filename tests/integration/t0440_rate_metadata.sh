#!/usr/bin/env bash
# rate_iops holds across the fleet; a metadata storm in one shared
# directory counts every op type exactly and leaves the directory clean.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D/shared"
timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/r.json" --name=r --rw=randread --bs=4k --size=8m \
  --directory="$D" --rate_iops=200 --runtime=3 --time_based >"$T/o" 2>&1 || fail "rate run: $(tail -n1 "$T/o")"
py "$T/r.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["phases"][0]["ops"]["read"]
assert abs(o["iops"] - 400) <= 20, "rate_iops=200 x 2 agents gave %.1f IOPS" % o["iops"]
assert "svc_ns" in o and o["svc_ns"]["p50"] <= o["lat_ns"]["p50"], o
PY
timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/m.json" --name=md --rw=metadata \
  --md_ops=create,stat,open,readdir,rename,unlink,mkdir,rmdir --nrfiles=100 --files_per_dir=30 \
  --filesize=4k --numjobs=2 --shared_dir=1 --directory="$D/shared" >"$T/o" 2>&1 || fail "metadata run: $(tail -n1 "$T/o")"
py "$T/m.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]; ops = p["ops"]
for op in ["create", "stat", "open", "rename", "unlink", "mkdir", "rmdir"]:
    assert ops[op]["ops"] == 400 and ops[op]["errors"] == 0, (op, ops.get(op))
# readdir: one per directory per job: 4 dirs (30 files each) x 2 jobs x 2 agents
assert ops["readdir"]["ops"] == 16 and ops["readdir"]["errors"] == 0, ops["readdir"]
assert ops["create"]["bytes"] == 400 * 4096, ops["create"]
for a in p["agents"]:
    assert a["ops"]["create"]["ops"] == 200, a["ops"]["create"]
PY
left=$(find "$D/shared" -mindepth 1 | wc -l)
[ "$left" -eq 0 ] || fail "$left entries left in the shared directory: $(find "$D/shared" | head -3)"
echo "rate and metadata hold"
