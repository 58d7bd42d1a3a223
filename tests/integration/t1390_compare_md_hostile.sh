#!/usr/bin/env bash
# Review of issue 13's compare, Markdown and option handling (R1):
# 1. An input with two 4k randread phases (the first only in that input):
#    the Markdown seeds' table gives that input a row per phase, named in
#    the job column (issue 21: rows keyed by job, nothing dropped), each
#    cell its own phase's IOPS.
# 2. Targets with '|' (escaped "\|" in Markdown) keep the table's columns
#    aligned: every line of a table has its '|' separators at the same
#    offsets.
#    Markdown punctuation in labels (<, [, `, *, _, \\) is escaped in cells
#    and labels with a backtick get a longer code-span fence.
# 3. --labels with a line break or an escape byte is refused (exit 2, one
#    line naming the byte), not printed into the Markdown row or terminal.
# 4. --unit-base takes exactly 1024 or 1000 in compare and in report
#    (report refused its own default, 1024, as an unknown option; compare
#    took any other value silently as 1024).
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
run() { timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/$1.json" --directory="$D" "${@:2}" \
  >"$T/$1.out" 2>&1 || fail "run $1: $(tail -n3 "$T/$1.out")"; }
one=(--rw=randread --bs=4k --size=4m --runtime=300ms --time_based --stonewall)
run a --target 'gp|2' --name=r4 "${one[@]}"
run b --target 'io|1|x' --name=warm "${one[@]}" --name=r4 "${one[@]}" --rate_iops=200
A=$T/a.json; B=$T/b.json

timeout 20 "$NFSTORM" compare "$A" "$B" --format md >"$T/c.md" 2>"$T/c.err" || fail "compare md: $(cat "$T/c.err")"
py "$A" "$B" "$T/c.md" <<'PY'
import json, sys, re
A, B = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
md = open(sys.argv[3]).read()
iops = lambda r, n: [p for p in r["phases"] if p["name"] == n][0]["ops"]["read"]["iops"]
def k(v):  # the report's count format: 2.00k, 345k
    for d, s in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= d: return v / d, s
    return v, ""
seeds = md.split("### IOPS and bandwidth by block size", 1)[1].split("###", 1)[0]
lines = [l for l in seeds.split("\n") if l.startswith("|")]
assert len(lines) == 5, lines
# table lines split on unescaped '|': same offsets in every line (aligned)
def seps(l): return [m.start() for m in re.finditer(r"(?<!\\)\|", l)]
for tbl in [lines] + [[l for l in part.split("\n") if l.startswith("|")] for part in md.split("###")[1:]]:
    if not tbl: continue
    if tbl[1].startswith("|---|"): continue      # the differences table is not padded
    ref = seps(tbl[0])
    for l in tbl[1:]:
        assert seps(l) == ref, "misaligned Markdown:\n%s\n%s" % (tbl[0], l)
cells = lambda l: [c.strip() for c in re.split(r"(?<!\\)\|", l.strip())[1:-1]]
hdr = cells(lines[0])
assert hdr == ["target", "job", "r/w", "rand/seq", "IOPS 4k", "BW 4k"], hdr
rows = {(cells(l)[0], cells(l)[1]): cells(l) for l in lines[2:]}
assert set(rows) == {("gp\\|2", "r4"), ("io\\|1\\|x", "warm"), ("io\\|1\\|x", "r4")}, rows.keys()
want_r4 = iops(B, "r4"); want_warm = iops(B, "warm")
assert want_r4 < 260 and want_warm > 5 * want_r4, (want_r4, want_warm)   # the two phases differ (a loaded machine read 2,804 unthrottled)
def num(got):
    v, s = re.match(r"([0-9.]+)([kMG]?)$", got).groups()
    return float(v) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[s]
for key, want in (((("io\\|1\\|x", "r4")), want_r4), ((("io\\|1\\|x", "warm")), want_warm),
                  ((("gp\\|2", "r4")), iops(A, "r4"))):
    got = rows[key][4]
    assert abs(num(got) - want) <= 0.01 * want, "seeds cell %s of %s is not its phase's %.0f" % (got, key, want)
PY

# Markdown punctuation in labels is escaped, never interpreted: raw HTML
# (a target "<img onerror=...>" ran in a renderer that allows HTML), links,
# code, emphasis; a label with a backtick gets a longer code-span fence
timeout 20 "$NFSTORM" compare "$A" "$B" --format md --labels '<img src=x onerror=alert(1)>,[a](u)`b*_|c\' \
  >"$T/h.md" 2>"$T/c.err" || fail "compare md hostile labels: $(cat "$T/c.err")"
py "$T/h.md" <<'PY'
import sys, re
md = open(sys.argv[1]).read()
L1, L2 = "<img src=x onerror=alert(1)>", "[a](u)`b*_|c\\"
E1, E2 = r"\<img src=x onerror=alert(1)\>", r"\[a\](u)\`b\*\_\|c\\"
assert "1. `%s`: `" % L1 in md, md[:400]
assert "2. `` %s ``: `" % L2 in md, md[:400]
rows = [l for l in md.split("\n") if l.startswith("| ")]
seeds = md.split("### IOPS and bandwidth by block size", 1)[1].split("###", 1)[0]
body = [l for l in seeds.split("\n") if l.startswith("| ")][2:]
assert body[0].startswith("| " + E1 + " ") and body[1].startswith("| " + E2 + " "), body
# outside code spans no '<' is left unescaped, in any table
for l in rows:
    assert not re.search(r"(?<!\\)<", l), l
    assert not re.search(r"(?<!\\)\[", l), l
# every table still aligned: separators at the same offsets on each line
def seps(l): return [m.start() for m in re.finditer(r"(?<!\\)\|", l.replace("\\\\", "xx"))]
tbl = [l for l in seeds.split("\n") if l.startswith("|")]
assert all(seps(l) == seps(tbl[0]) for l in tbl), "\n".join(tbl)
PY

refuse() {  # NAME REGEX ARGS...: exit 2, one line matching REGEX, nothing on stdout
  local name=$1 re=$2; shift 2
  timeout 20 "$NFSTORM" "$@" >"$T/o" 2>"$T/e"; local rc=$?
  [ $rc -eq 2 ] || fail "$name: exit $rc, want 2: $(head -c 300 "$T/e")"
  [ "$(wc -l <"$T/e")" -eq 1 ] && grep -Eq -- "$re" "$T/e" || fail "$name: stderr not one line /$re/: $(cat "$T/e")"
  [ ! -s "$T/o" ] || fail "$name: wrote to stdout: $(head -c 200 "$T/o" | od -c | head -3)"
}
refuse "label with a newline" "--labels: name 1 has a control character \(byte 0x0a\)" \
  compare "$A" "$B" --labels $'x\ny,z' --format md
refuse "label with ESC" "--labels: name 2 has a control character \(byte 0x1b\)" \
  compare "$A" "$B" --labels $'x,y\e[2J'
refuse "compare --unit-base 999" "compare: --unit-base: bad value '999'" compare "$A" "$B" --unit-base 999
refuse "report --unit-base 7" "report: --unit-base: bad value '7'" report "$A" --unit-base 7
refuse "report --unit-base" "--unit-base needs a value" report "$A" --unit-base

# the accepted spellings
for ub in "--unit-base 1024" "--unit-base=1024"; do
  timeout 20 "$NFSTORM" report "$A" $ub >"$T/r" 2>&1 || fail "report $ub: $(cat "$T/r")"
  grep -q "GiB/s\|MiB/s" "$T/r" || fail "report $ub: no IEC units: $(head -12 "$T/r")"
done
timeout 20 "$NFSTORM" report "$A" --unit-base=1000 >"$T/r" 2>&1 || fail "report --unit-base=1000: $(cat "$T/r")"
grep -q "^r4 .* [0-9.]*[GM]B/s " "$T/r" && ! grep -q "^r4 .*iB/s" "$T/r" || fail "report --unit-base=1000: not SI: $(head -12 "$T/r")"
timeout 20 "$NFSTORM" compare "$A" "$B" --unit-base 1024 >"$T/r" 2>&1 || fail "compare --unit-base 1024: $(cat "$T/r")"
echo "compare md hostile ok"
