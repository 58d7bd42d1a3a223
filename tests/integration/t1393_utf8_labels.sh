#!/usr/bin/env bash
# Labels and targets in any script (R1 review of issue 13): a --target
# "efs-ΔΩ-日本" was stored as "efs-????-??????" and a --label "lab-é"
# printed by the run but re-rendered as "lab-??" by `nfstorm report`, so the
# re-render was not what the run printed.  Now well-formed UTF-8 is kept
# (JSON record, argv, text, compare in every format) and control bytes, a
# bidi override and malformed bytes become '?' alike in the run's output
# and in the re-render from the JSON and from the journal; compare's "what
# differs" cuts long values at a character and aligns in characters.  (A label with a
# stray byte lost the whole JSON result: "cannot write the JSON result".)
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
TGT='efs-ΔΩ-日本'
LAB=$'lab-é\e[31m\xff\xe2\x80\xaeX'     # é, ESC, a stray byte, U+202E
WANT_LAB='lab-é?[31m??X'
timeout 60 "$NFSTORM" run --local 1 --quiet --label "$LAB" --target "$TGT" --json "$T/u.json" --csv "$T/u.csv" \
  --html "$T/u.html" --directory="$D" --name=r --rw=randread --bs=4k --size=4m --runtime=300ms --time_based \
  >"$T/u.txt" 2>"$T/u.err" || fail "run: $(cat "$T/u.err")"
head -n1 "$T/u.txt" | grep -qF "run $WANT_LAB: 1 agent, 1 phase, started " || fail "run text label: $(head -1 "$T/u.txt" | od -c | head -3)"
sed -n 2p "$T/u.txt" | grep -qF "target $TGT, nfstorm " || fail "run text target: $(sed -n 2p "$T/u.txt")"
! grep -q $'\e' "$T/u.txt" "$T/u.html" "$T/u.csv" || fail "an escape byte reached a report"
py "$T/u.json" "$TGT" "$WANT_LAB" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["record"]["target"] == sys.argv[2], r["record"]["target"]
assert r["label"] == sys.argv[3], repr(r["label"])
a = r["record"]["argv"]
assert a[a.index("--target") + 1] == sys.argv[2] and a[a.index("--label") + 1] == sys.argv[3], a
PY
for src in u.json u.json.journal; do
  timeout 20 "$NFSTORM" report "$T/$src" --csv "$T/x.csv" --html "$T/x.html" >"$T/x.txt" 2>"$T/x.err" \
    || fail "report $src: $(cat "$T/x.err")"
  for f in txt csv html; do
    cmp -s "$T/u.$f" "$T/x.$f" || fail "$f from $src differs: $(diff "$T/u.$f" "$T/x.$f" | head -4)"
  done
done
timeout 60 "$NFSTORM" run --local 1 --quiet --target plain --json "$T/p.json" --directory="$D" --name=r \
  --rw=randread --bs=4k --size=4m --runtime=300ms --time_based >"$T/p.txt" 2>&1 || fail "run p: $(cat "$T/p.txt")"
for f in text md csv json html; do
  timeout 20 "$NFSTORM" compare "$T/u.json" "$T/p.json" --format $f >"$T/c.$f" 2>"$T/c.err" \
    || fail "compare --format $f: $(cat "$T/c.err")"
  grep -q "$TGT" "$T/c.$f" || fail "compare --format $f lost the target: $(head -c 400 "$T/c.$f")"
done
py "$T/c.json" "$T/c.text" "$TGT" <<'PY'
import json, sys, re
J = json.load(open(sys.argv[1])); tgt = sys.argv[3]
assert [i["label"] for i in J["inputs"]] == [tgt, "plain"], J["inputs"]
# text columns: the value cells start under the header's, counted in characters
t = open(sys.argv[2], encoding="utf-8").read().split("\n")
h = [i for i, l in enumerate(t) if l.startswith("headline:")][0]
hdr, row = t[h + 1], t[h + 2]
val = re.split(r" {2,}", row.strip())[4]
assert hdr.index(tgt) == row.index("  " + val) + 2, (hdr, row)
assert hdr.index("plain") == row.index("  " + re.split(r" {2,}", row.strip())[5]) + 2, (hdr, row)
PY
# "what differs": a 45-character target in Greek is cut at 40 characters
# (never inside a character: the text stays UTF-8) and the columns line up
# counted in characters
LONG=$(printf 'Δ%.0s' $(seq 45))
timeout 60 "$NFSTORM" run --local 1 --quiet --target "$LONG" --json "$T/l.json" --directory="$D" --name=r \
  --rw=randread --bs=4k --size=4m --runtime=300ms --time_based >"$T/l.txt" 2>&1 || fail "run l: $(cat "$T/l.txt")"
timeout 20 "$NFSTORM" compare "$T/l.json" "$T/u.json" "$T/p.json" >"$T/c3.text" 2>"$T/c.err" || fail "compare 3: $(cat "$T/c.err")"
py "$T/c3.text" "$TGT" <<'PY'
import sys, re
raw = open(sys.argv[1], "rb").read()
t = raw.decode("utf-8").split("\n")          # raises on a cut character
i = t.index("what differs between the runs:")
block = []
for l in t[i + 1:]:
    if not l.startswith("  "): break
    block.append(l)
tgt = [l for l in block if l.startswith("  target ")][0]
cut = "\u0394" * 37 + "..."
assert cut in tgt and "\u0394" * 38 not in tgt, tgt
hdr = block[0]
assert hdr.index("\u0394" * 37) == tgt.index(cut), (hdr, tgt)
assert hdr.index(sys.argv[2]) == tgt.index(sys.argv[2]), (hdr, tgt)
assert hdr.index("plain") == tgt.index("plain"), (hdr, tgt)
PY
# a repeat set: its target is cleaned as each repetition's (a stray byte
# lost the whole set file: "cannot write the repeat set"), the text and
# the re-render of the set agree
timeout 60 "$NFSTORM" run --local 1 --quiet --repeat 2 --target $'t\xff\e[1mΩ' --json "$T/st.json" \
  --directory="$D" --name=r --rw=randread --bs=4k --size=4m --runtime=1 >"$T/st.txt" 2>"$T/st.err" \
  || fail "repeat run: $(cat "$T/st.err")"
head -n1 "$T/st.txt" | grep -qF "repeat set (unlabelled), target t??[1mΩ: 2 of 2 repetitions" \
  || fail "set heading: $(head -n1 "$T/st.txt" | od -c | head -3)"
timeout 20 "$NFSTORM" report "$T/st.json" >"$T/st2.txt" 2>&1 || fail "report set: $(cat "$T/st2.txt")"
cmp -s "$T/st.txt" "$T/st2.txt" || fail "set re-render differs: $(diff "$T/st.txt" "$T/st2.txt" | head -4)"
py "$T/st.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["target"] == "t??[1m\u03a9" and all(r["record"]["target"] == s["target"] for r in s["repetitions"]), s["target"]
PY
echo "utf-8 labels ok"
