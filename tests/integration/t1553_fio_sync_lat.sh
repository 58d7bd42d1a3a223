#!/usr/bin/env bash
# Issue 22 item 9: fsync/fdatasync are an op kind of their own ("sync":
# nfstorm's JSON ops.sync and a text row; fio's JSON "sync" section with
# total_ios and lat_ns.percentile, which etcd's disk check reads as
# sync.lat_ns.percentile["99.000000"]).  Counted as fio 3.33 counts them:
# the sync due after the last write is not issued, end_fsync's is not
# counted.  Where fio is installed its JSON of the same jobs is compared:
# the same counts and the same percentile keys.  A saved result re-renders
# the same sync section.
source "$(dirname "$0")/lib.sh"
cat >"$T/j.fio" <<'F'
[fs]
rw=write
bs=4k
size=256k
fsync=1
filename=sync-a.dat
[fds]
stonewall
rw=write
bs=4k
size=256k
fdatasync=4
end_fsync=1
filename=sync-b.dat
F
mkdir -p "$T/ns" "$T/fio"
(cd "$T/ns" && timeout 60 "$NFSTORM" run ../j.fio --local 1 --json ../r.json --output-format=json+ \
   --output ../ns.json) >"$T/out" 2>&1 || fail "nfstorm: $(tail -n2 "$T/out")"
"$NFSTORM" report "$T/r.json" >"$T/text" 2>&1 || fail "report: $(tail -n2 "$T/text")"
grep -Eq "^ +sync +[0-9.kM]+ +- " "$T/text" || fail "no sync row in the text report: $(cat "$T/text")"
"$NFSTORM" report "$T/r.json" --output-format=json+ --output "$T/ns2.json" >"$T/out" 2>&1 \
  || fail "re-render: $(tail -n2 "$T/out")"
if command -v fio >/dev/null; then
  (cd "$T/fio" && timeout 60 fio ../j.fio --output-format=json+ --output=../fio.json) >"$T/out" 2>&1 \
    || fail "fio: $(tail -n2 "$T/out")"
fi
py "$T" <<'PY'
import json, os, sys
T = sys.argv[1]
own = {p["name"]: p for p in json.load(open(f"{T}/r.json"))["phases"]}
# 64 writes, a sync after each but the last: 63; fdatasync=4: 15 (the
# 16th is not due before a next op), end_fsync's flush not counted
want = {"fs": 63, "fds": 15}
for name, n in want.items():
    s = own[name]["ops"]["sync"]
    assert s["ops"] == n and s["bytes"] == 0 and s["errors"] == 0, (name, s)
    assert own[name]["ops"]["write"]["ops"] == 64, own[name]["ops"]["write"]
def jobs(path):
    return {j["jobname"]: j for j in json.load(open(path))["jobs"]}
ns, ns2 = jobs(f"{T}/ns.json"), jobs(f"{T}/ns2.json")
for name, n in want.items():
    sy = ns[name]["sync"]
    assert sy["total_ios"] == n and sy["lat_ns"]["N"] == n, (name, sy["total_ios"], sy["lat_ns"]["N"])
    p99 = sy["lat_ns"]["percentile"]["99.000000"]
    assert 0 < sy["lat_ns"]["min"] <= p99 <= sy["lat_ns"]["max"], sy["lat_ns"]
    assert sum(sy["lat_ns"]["bins"].values()) == n, "json+ bins"
    assert ns2[name]["sync"] == sy, (name, "re-rendered", ns2[name]["sync"], sy)
if os.path.exists(f"{T}/fio.json"):
    fio = jobs(f"{T}/fio.json")
    for name, n in want.items():
        f, m = fio[name]["sync"], ns[name]["sync"]
        assert f["lat_ns"]["N"] == m["lat_ns"]["N"], (name, "N", f["lat_ns"]["N"], m["lat_ns"]["N"])
        # fio 3.33 leaves total_ios 0 for fdatasync (its DDIR_DATASYNC is not summed there)
        assert f["total_ios"] in (m["total_ios"], 0), (name, f["total_ios"], m["total_ios"])
        assert sorted(f["lat_ns"]) == sorted(m["lat_ns"]), (sorted(f["lat_ns"]), sorted(m["lat_ns"]))
        assert sorted(f["lat_ns"]["percentile"]) == sorted(m["lat_ns"]["percentile"])
        assert fio[name]["write"]["total_ios"] == ns[name]["write"]["total_ios"]
PY
echo "sync: its own op kind, and fio's sync section as fio writes it"
