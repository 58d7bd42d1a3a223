#!/usr/bin/env bash
# docs/plans.md "fio's keys: what nfstorm does with each" tells the truth
# about common/plan_fio_keys.c: every ignored key of the inventory is named
# (or matched by a `name*` pattern) in the ignored list, every refused key in
# the refused list (the options of engines nfstorm lacks as their group),
# the not-yet-implemented ones in the "not yet implemented" list and only
# they, every alias in the alias list and the accepted one in its; no
# implemented key is listed as ignored or refused (outside parentheses,
# which explain); and the --fio-compat-report of a key of each list says
# the same.  The inventory is read from the C table itself.
source "$(dirname "$0")/lib.sh"
py "$ROOT/common/plan_fio_keys.c" "$ROOT/docs/plans.md" <<'PY'
import fnmatch, re, sys
src, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
table = src[src.index("static const struct fio_key table[]"):]
ent = re.findall(r'\b(IMPL|ALIAS|SAME|IGN|REF|NOTYET|IGN_PROFILE|REF_ENGINE)\("([^"]+)"', table)
assert len(ent) >= 353, ("inventory entries", len(ent))  # fio 3.33 has 353 names
by = {}
for m, n in ent:
    by.setdefault(m, []).append(n)
reason_engine = set(re.findall(r'REF\("([^"]+)", "an option of fio\'s \w+ engine', table))

a = doc.index("### fio's keys: what nfstorm does with each")
b = doc.index("\n### ", a + 10)
sec = doc[a:b]
def bullet(head):
    i = sec.index("\n* **" + head)
    j = sec.find("\n* **", i + 5)
    return sec[i:j if j > 0 else len(sec)]
alias, accepted = bullet("alias of X"), bullet("accepted")
ignored, refused = bullet("ignored"), bullet("refused")
i = refused.index("not yet implemented (planned)")
notyet = refused[i:refused.index("\n  * ", i)]

def names(text):
    return set(re.findall(r"`([A-Za-z0-9_*-]+)=?`", text))
def covered(n, text):
    return any(n == x or ("*" in x and fnmatch.fnmatchcase(n, x)) for x in names(text))
def bare(text):
    while True:
        t = re.sub(r"\([^()]*\)", "", text)
        if t == text:
            return names(t)
        text = t

bad = []
for n in by["IGN"] + by["IGN_PROFILE"]:
    if not covered(n, ignored): bad.append("ignored key %s not in the ignored list" % n)
for n in by["REF"] + by["NOTYET"]:
    if n not in reason_engine and not covered(n, refused):
        bad.append("refused key %s not in the refused list" % n)
for n in by["NOTYET"]:
    if n not in names(notyet): bad.append("not-yet key %s not in the not-yet list" % n)
for n in names(notyet):
    if n in {x for m, x in ent} and n not in by["NOTYET"] and n != "blockalign":
        bad.append("%s is in the not-yet list but is %s" % (n, [m for m, x in ent if x == n][0]))
for n in by["ALIAS"]:
    if not covered(n, alias): bad.append("alias %s not in the alias list" % n)
for n in by["SAME"]:
    if n not in names(accepted): bad.append("accepted key %s not in its list" % n)
for n in by["IMPL"]:
    for what, text in (("ignored", ignored), ("refused", refused)):
        if n in bare(text): bad.append("implemented key %s listed as %s" % (n, what))
for g in ("rbd", "rdma", "http", "sg", "xnvme"):
    if g not in refused: bad.append("engine %s not named in the refused list" % g)
assert not bad, "\n".join(bad)
print("doc lists: %d ignored, %d refused, %d not yet, %d aliases checked" %
      (len(by["IGN"]) + len(by["IGN_PROFILE"]), len(by["REF"]) + len(by["REF_ENGINE"]) + len(by["NOTYET"]),
       len(by["NOTYET"]), len(by["ALIAS"])))
PY
# the report agrees with the lists for a key of each
"$NFSTORM" run --fio-compat-report --name=c --size=1m --threads=1 --stat_type=lstat --ss=iops:5% \
  --write_bw_log=x --log_avg_msec=100 >"$T/out" 2>&1 || fail "report: exit $?: $(cat "$T/out")"
grep -q "^  argument 3  threads=1 .* ignored: an option of fio's tiobench profile; without profile=tiobench it does nothing, in fio too$" \
  "$T/out" || fail "threads: $(cat "$T/out")"
grep -q "^  argument 4  stat_type=lstat .* ignored: " "$T/out" || fail "stat_type: $(cat "$T/out")"
grep -Eq "^  argument 5  ss=iops:5% +alias of steadystate$" "$T/out" || fail "ss: $(cat "$T/out")"
grep -Eq "^  argument 6  write_bw_log=x +implemented$" "$T/out" || fail "write_bw_log: $(cat "$T/out")"
"$NFSTORM" run --fio-compat-report --name=c --size=1m --blockalign=4k >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "blockalign: exit $rc"
grep -q "^  argument 3  blockalign=4k .*alias of ba, refused: not yet implemented: " "$T/out" || fail "blockalign: $(cat "$T/out")"
echo "docs/plans.md lists fio's keys as common/plan_fio_keys.c does"
