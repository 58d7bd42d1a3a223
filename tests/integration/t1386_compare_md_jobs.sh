#!/usr/bin/env bash
# The seeds' table of a plan with two jobs of one kind on different storage
# (as NFS phases at 4k and 32m beside a local psync control at 4k and 1m;
# here tmpfs and ext4, both reported by the agent): a row per job, named in
# the job column, the control's 1m never beside the other job's cells and
# its 4k phase never dropped; the HTML gives each job its own scale.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
S=/dev/shm/nfstorm-t1386.$$
mkdir -p "$S" 2>/dev/null && [ "$(stat -f -c %T "$S")" = tmpfs ] || skip "no tmpfs at /dev/shm"
trap 'rm -rf "$S"; cleanup' EXIT
[ "$(stat -f -c %T "$D")" != tmpfs ] || skip "$T is on tmpfs too: the two jobs would not differ"
cat >"$T/p.fio" <<FIO
[global]
ioengine=psync
time_based=1
runtime=300ms
size=4m
[shm-4k]
directory=$S
rw=randread
bs=4k
[shm-32m]
stonewall
directory=$S
rw=randread
bs=32m
size=64m
[ctl-4k]
stonewall
directory=$D
rw=randread
bs=4k
[ctl-1m]
stonewall
directory=$D
rw=randread
bs=1m
FIO
for L in a b; do
  timeout 60 "$NFSTORM" run "$T/p.fio" --local 1 --quiet --label $L --json "$T/$L.json" >"$T/$L.out" 2>&1 \
    || fail "run $L: $(tail -n3 "$T/$L.out")"
done
timeout 20 "$NFSTORM" compare "$T/a.json" "$T/b.json" --format md >"$T/c.md" 2>&1 || fail "compare md: $(cat "$T/c.md")"
timeout 20 "$NFSTORM" compare "$T/a.json" "$T/b.json" --format html >"$T/c.html" 2>&1 || fail "compare html"
py "$T/a.json" "$T/b.json" "$T/c.md" "$T/c.html" <<'PY'
import json, sys, re
A, B = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
md, html = open(sys.argv[3]).read(), open(sys.argv[4]).read()
seeds = md.split("### IOPS and bandwidth by block size", 1)[1].split("###", 1)[0]
lines = [l for l in seeds.split("\n") if l.startswith("|")]
cells = lambda l: [c.strip() for c in l.strip().strip("|").split("|")]
hdr = cells(lines[0])
assert hdr == ["target", "job", "r/w", "rand/seq", "IOPS 4k", "IOPS 1m", "IOPS 32m", "BW 4k", "BW 1m", "BW 32m"], hdr
rows = {(cells(l)[0], cells(l)[1]): cells(l) for l in lines[2:]}
assert set(rows) == {(L, j) for L in "ab" for j in ("shm-4k, shm-32m", "ctl-4k, ctl-1m")}, rows.keys()
def num(v):
    m = re.match(r"([0-9.]+)([kMG]?)$", v)
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]
iops = lambda r, n: [p for p in r["phases"] if p["name"] == n][0]["ops"]["read"]["iops"]
for L, R in (("a", A), ("b", B)):
    shm, ctl = rows[(L, "shm-4k, shm-32m")], rows[(L, "ctl-4k, ctl-1m")]
    assert shm[5] == "-" and ctl[6] == "-", (shm, ctl)          # no cell of the other job
    for cell, name in ((shm[4], "shm-4k"), (shm[6], "shm-32m"), (ctl[4], "ctl-4k"), (ctl[5], "ctl-1m")):
        want = iops(R, name)
        assert abs(num(cell) - want) <= 0.01 * want + 0.05, (L, name, cell, want)
assert "Not in this table" not in seeds, seeds
assert 'data-view="compare-ratio-iops"' in html
print("seeds' table: a row per job (tmpfs, ext4) for each input; every phase in its own row")
PY
[ $? -eq 0 ] || fail "seeds' table"
echo "compare md keyed by job"
