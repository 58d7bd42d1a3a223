#!/usr/bin/env bash
# The seeds' fio commands run with only `fio` replaced: single-dash options,
# -filename shared by all jobs, -group_reporting, -direct=1 (falls back to
# reporting a clear error where O_DIRECT is unsupported, e.g. tmpfs).
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cd "$D"
timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/a.json" -filename="$D/test2g" -rw=randread -bs=4k \
  -size=16M -numjobs=16 -runtime=1 -group_reporting -name=file1 >"$T/out" 2>&1 || fail "$(tail -n3 "$T/out")"
py "$T/a.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
assert p["name"] == "file1" and p["numjobs"] == 16 and p["rw"] == "randread", p["name"]
o = p["ops"]["read"]
assert o["ops"] > 0 and o["errors"] == 0 and o["bytes"] == o["ops"] * 4096, o
PY
[ "$(stat -c %s "$D/test2g")" -eq $((16 << 20)) ] || fail "test2g not laid out to 16 MiB"
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/b.json" -filename="$D/seq" -rw=write -bs=32m \
  -size=64M -numjobs=2 -runtime=10 -group_reporting -name=file1 >"$T/out" 2>&1 || fail "$(tail -n3 "$T/out")"
py "$T/b.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]
assert o["ops"] == 4 and o["bytes"] == 4 * (32 << 20), o   # 2 jobs x 64M / 32M
PY
echo "fio command lines run"
