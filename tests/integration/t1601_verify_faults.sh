#!/usr/bin/env bash
# Corruption written by a real second writer (this script) between runs is
# detected, classified and located by a later verify_only run that has only
# the headers to go by.  Run A writes c (16 blocks of 4k) and o; run B
# rewrites them (a newer generation).  Then, in c: block 1 gets a byte
# flipped, block 2 a copy of block 3, block 4 o's block 4, block 5 zeroes,
# block 6 run A's block 6 back, block 7 run A's first half over run B's.
# Expected, exactly: 16 checked, 10 ok, one each of corrupt_checksum,
# wrong_offset, wrong_file, zeroes, stale_generation, torn, each at its
# offset with what was found; the phase fails (exit 1) and `nfstorm report`
# on the JSON and on the journal says the same.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/w.fio" <<F
[global]
directory=$D
bs=4k
size=64k
verify=crc32c
[c]
rw=write
filename=c
[o]
rw=write
filename=o
F
sed -e 's/^rw=write$/rw=write\nverify_only=1/' -e '/^\[o\]$/,$d' "$T/w.fio" >"$T/v.fio"
timeout 30 "$NFSTORM" run --local 1 --quiet "$T/w.fio" >"$T/a.out" 2>&1 || fail "run A: $(tail -3 "$T/a.out")"
cp "$D/c" "$T/c.A"
timeout 30 "$NFSTORM" run --local 1 --quiet "$T/w.fio" >"$T/b.out" 2>&1 || fail "run B: $(tail -3 "$T/b.out")"
python3 - "$D/c" "$D/o" "$T/c.A" <<'PY' || fail "corrupting failed"
import sys
c, o, a = sys.argv[1:]
B = 4096
with open(a, "rb") as f: old = f.read()
with open(o, "rb") as f: other = f.read()
with open(c, "r+b") as f:
    cur = f.read()
    def put(off, data):
        f.seek(off); f.write(data)
    put(1 * B + 2000, bytes([cur[1 * B + 2000] ^ 0x01]))      # corrupt_checksum
    put(2 * B, cur[3 * B:4 * B])                                # wrong_offset
    put(4 * B, other[4 * B:5 * B])                              # wrong_file
    put(5 * B, bytes(B))                                        # zeroes
    put(6 * B, old[6 * B:7 * B])                                # stale_generation
    put(7 * B, old[7 * B:7 * B + 2048])                         # torn
PY
timeout 30 "$NFSTORM" run --local 1 --json "$T/r.json" "$T/v.fio" >"$T/v.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "verify_only run: exit $rc, want 1: $(tail -5 "$T/v.out")"
py "$T/r.json" "$D/c" "$T/c.A" <<'PY'
import json, struct, sys
res, c, a = sys.argv[1:]
gen = lambda path, blk: struct.unpack_from("<Q", open(path, "rb").read(), blk * 4096 + 40)[0]
gen_a, gen_b = gen(a, 0), gen(c, 0)
assert gen_b > gen_a > 0, (gen_a, gen_b)
ph = json.load(open(res))["phases"][0]
v = ph["verify"]
want = {"checked": 16, "ok": 10, "corrupt_checksum": 1, "wrong_offset": 1, "wrong_file": 1,
        "zeroes": 1, "stale_generation": 1, "torn": 1, "wrong_writer": 0}
assert {k: v[k] for k in want} == want, v
first = {f["offset"]: f for f in v["first"]}
assert sorted(first) == [4096 * i for i in (1, 2, 4, 5, 6, 7)], sorted(first)
kind = {off // 4096: f["kind"] for off, f in first.items()}
assert kind == {1: "corrupt_checksum", 2: "wrong_offset", 4: "wrong_file", 5: "zeroes",
                6: "stale_generation", 7: "torn"}, kind
for f in v["first"]:
    assert f["file"] == c and f["reader"] == 0 and f["expected_writer"] is None, f
# what was found, and who wrote it
assert first[2 * 4096]["found_offset"] == 3 * 4096 and first[2 * 4096]["found_generation"] == gen_b
assert first[4 * 4096]["found_offset"] == 4 * 4096 and first[4 * 4096]["found_writer"] == 0
s = first[6 * 4096]
assert s["found_generation"] == gen_a and s["expected_generation"] == gen_b, s
t = first[7 * 4096]
assert t["found_generation"] == gen_a and t["found_writer"] == 0, t
z = first[5 * 4096]
assert z["found_generation"] == 0 and z["found_writer"] == 0, z
assert ph["verdict"] == "failed" and any("verify: 6 of 16 blocks bad" in r for r in ph["reasons"]), ph["reasons"]
assert ph["agents"][0]["verify"] == v, ph["agents"][0]["verify"]
PY
line='verify: 16 checked, 10 ok, 1 corrupt_checksum, 1 wrong_offset, 1 wrong_file, 1 stale_generation, 1 torn, 1 zeroes'
grep -qx "$line" "$T/v.out" || fail "text report: no '$line': $(grep verify "$T/v.out")"
grep -q "bad block (agent 0): $D/c offset 24576: stale_generation: expected any writer generation [0-9]*, found writer 0 job 0 generation [0-9]*" "$T/v.out" \
  || fail "text report: stale block not located: $(grep 'bad block' "$T/v.out")"
# re-rendered: the same verify object, the same text, the same verdict
for src in "$T/r.json" "$T/r.json.journal"; do
  timeout 30 "$NFSTORM" report "$src" --json "$T/re.json" --html "$T/re.html" >"$T/re.out" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "report $src: exit $rc, want 1: $(tail -3 "$T/re.out")"
  grep -qx "$line" "$T/re.out" || fail "report $src: no verify line"
  for k in corrupt_checksum wrong_offset wrong_file stale_generation torn zeroes; do
    grep -q "<td data-verify=\"$k\">1</td>" "$T/re.html" || fail "report $src: HTML has no $k count of 1"
  done
  grep -q 'data-verify="ok">10<' "$T/re.html" || fail "report $src: HTML ok count"
  [ "$(grep -c "<tr><td>0</td><td class=\"l\">$D/c</td>" "$T/re.html")" -eq 6 ] || fail "report $src: HTML offenders"
  py "$T/r.json" "$T/re.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["phases"][0] for p in sys.argv[1:])
assert a["verify"] == b["verify"] and a["agents"][0]["verify"] == b["agents"][0]["verify"], (a["verify"], b["verify"])
assert a["reasons"] == b["reasons"], (a["reasons"], b["reasons"])
PY
done
echo "verify faults: 6 kinds detected, classified and located; re-rendered alike"
