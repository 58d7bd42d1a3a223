#!/usr/bin/env bash
# fio's per-direction rates: rate=1m,2m caps reads at 1 MiB/s and writes at
# 2 MiB/s, each on its own schedule (the mix follows the rates, not
# rwmixread); rate_iops=,200 caps only writes while reads run free.  Bytes
# and ops per direction over a 2 s run, within 15%.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/p.fio" <<F
[global]
directory=$D
rw=randrw
bs=4k
size=8m
runtime=2
time_based
[bps]
rate=1m,2m
[wiops]
stonewall
rwmixread=50
rate_iops=,200
thinktime=500
F
"$NFSTORM" run --dry-run "$T/p.fio" >"$T/dry" 2>&1 || fail "dry run: $(tail -n2 "$T/dry")"
grep -q "job bps: .* rate=1MiB/s,2MiB/s rate_process=linear" "$T/dry" || fail "dry run: $(grep bps "$T/dry")"
grep -q "job wiops: .* rate_iops=0,200 " "$T/dry" || fail "dry run: $(grep wiops "$T/dry")"
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r.json" "$T/p.fio" >"$T/o" 2>&1 || fail "$(tail -n2 "$T/o")"
py "$T/r.json" <<'PY'
import json, sys
ph = {p["name"]: p for p in json.load(open(sys.argv[1]))["phases"]}
near = lambda got, want: abs(got - want) <= 0.15 * want
b = ph["bps"]
s = b["duration_s"]
r, w = b["ops"]["read"]["bytes"] / s, b["ops"]["write"]["bytes"] / s
assert near(r, 1 << 20), "reads %.0f B/s, want 1 MiB/s" % r
assert near(w, 2 << 20), "writes %.0f B/s, want 2 MiB/s" % w
wi = ph["wiops"]
s = wi["duration_s"]
wops, rops = wi["ops"]["write"]["ops"] / s, wi["ops"]["read"]["ops"] / s
assert near(wops, 200), "writes %.1f ops/s, want 200" % wops
assert rops > 2 * wops, "reads %.1f ops/s should run free of the writes' cap" % rops
print("bps: reads %.2f MiB/s writes %.2f MiB/s; wiops: writes %.0f/s reads %.0f/s" % (r / 2**20, w / 2**20, wops, rops))
PY
# rate_min: writes capped at 100 KiB/s cannot keep 1 MiB/s; the job fails
# at the end of its first 300 ms cycle naming the direction and the key
timeout 30 "$NFSTORM" run --local 1 --quiet --name=slow --directory="$D" --rw=randrw --bs=4k --size=1m \
  --rate=1m,100k --rate_min=,1m --ratecycle=300 --runtime=5 --time_based >"$T/o" 2>&1 && fail "rate_min passed"
grep -q "job 'slow': writes at [0-9]* bytes/s over 0.3[0-9]* s, below rate_min=1048576" "$T/o" || fail "$(tail -n2 "$T/o")"
grep -q "job slow: .* rate_min=0B/s,1MiB/s ratecycle=300ms" <("$NFSTORM" run --dry-run --name=slow --rw=randrw \
  --size=1m --rate_min=,1m --ratecycle=300) || fail "dry run does not show rate_min"
echo "per-direction rates honoured"
