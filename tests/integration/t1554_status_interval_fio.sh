#!/usr/bin/env bash
# Issue 22 item 11: --status-interval writes fio's periodic reports in the
# chosen output format, as fio 3.33 does: every interval a whole report of
# the run so far (a complete JSON document each, then the final one; terse
# lines), on the report's stream (stdout, or --output), and never a
# "status:" line of nfstorm's own.  The running phase's figures are its
# merged intervals so far: each later report counts no fewer ops, and the
# last report is the final result (the --json file's counts).
source "$(dirname "$0")/lib.sh"
printf '[t]\nioengine=null\nsize=1M\nrw=read\ntime_based=1\nruntime=3\nrate_iops=200\n' >"$T/t.fio"
# 2.5 s: its last interval is short, past the planned end: no status point
# there (fio's would fall after the end), only the final report
printf '[t]\nioengine=null\nsize=1M\nrw=read\ntime_based=1\nruntime=2500ms\nrate_iops=200\n' >"$T/h.fio"
# two phases of 1.5 s (for --output, 500 ms status points): finished phases
# stay in each report beside the running one
printf '[a]\nioengine=null\nsize=1M\nrw=read\ntime_based=1\nruntime=1500ms\nrate_iops=200\n[b]\nstonewall\nioengine=null\nsize=1M\nrw=write\ntime_based=1\nruntime=1500ms\nrate_iops=200\n' >"$T/ab.fio"

timeout 30 "$NFSTORM" run "$T/t.fio" --local 1 --quiet --status-interval=1 --output-format=json \
  --json "$T/j.json" >"$T/j.out" 2>"$T/j.err" || fail "json run: $(cat "$T/j.err")"
timeout 30 "$NFSTORM" run "$T/h.fio" --local 1 --quiet --status-interval=1 --output-format=terse \
  --json "$T/t.json" >"$T/t.out" 2>"$T/t.err" || fail "terse run: $(cat "$T/t.err")"
timeout 30 "$NFSTORM" run "$T/ab.fio" --local 1 --quiet --interval 500ms --status-interval=500ms \
  --output-format=json --output "$T/ab.out" --json "$T/ab.json" >"$T/ab.stdout" 2>"$T/ab.err" \
  || fail "--output run: $(cat "$T/ab.err")"
for f in j.out j.err t.out t.err ab.out ab.stdout ab.err; do
  ! grep -q "status:" "$T/$f" || fail "nfstorm's own status line in $f: $(grep -m1 "status:" "$T/$f")"
done
[ ! -s "$T/ab.stdout" ] || fail "stdout not empty with --output: $(head -c 300 "$T/ab.stdout")"
py "$T" <<'PY'
import json, sys
T = sys.argv[1]

def docs(path):
    s, d, i, out = open(path).read(), json.JSONDecoder(), 0, []
    while True:
        while i < len(s) and s[i].isspace():
            i += 1
        if i == len(s):
            return out
        o, i = d.raw_decode(s, i)     # raises if a document is not complete
        out.append(o)

def final(path):
    return [p["ops"] for p in json.load(open(path))["phases"]]

# json: status points at 1, 2 (and 3) s, then the final document
ds = docs(T + "/j.out")
assert 3 <= len(ds) <= 4, ("documents", len(ds))
ios = [d["jobs"][0]["read"]["total_ios"] for d in ds]
assert all(len(d["jobs"]) == 1 and d["fio version"].startswith("nfstorm-") for d in ds), ds[0].keys()
assert ios == sorted(ios) and ios[0] > 0, ios
assert ios[-1] == final(T + "/j.json")[0]["read"]["ops"], (ios, final(T + "/j.json"))
rt = [d["jobs"][0]["read"]["runtime"] for d in ds]
assert rt[0] == 1000 and rt[1] == 2000, rt                  # the run so far, in ms
assert len(ds[-1]["client_stats"]) == 1, ds[-1]["client_stats"]   # agents once done

# terse: one line per status point (1 and 2 s, not the short last
# interval), each the whole report of the run so far, then the final line
ls = open(T + "/t.out").read().splitlines()
assert len(ls) == 3, ls
f = [l.split(";") for l in ls]
assert all(x[0] == "3" and x[2] == "t" for x in f), ls
kb = [int(x[5]) for x in f]                                 # read io_kbytes
rt = [int(x[8]) for x in f]                                 # read runtime, ms
assert kb == sorted(kb) and kb[0] > 0, kb
assert rt[:2] == [1000, 2000] and 2400 <= rt[2] <= 2700, rt
assert kb[-1] == final(T + "/t.json")[0]["read"]["bytes"] // 1024, (kb, final(T + "/t.json"))

# --output: the same documents in the file; a finished phase stays, the
# running one joins it
ds = docs(T + "/ab.out")
n = [len(d["jobs"]) for d in ds]
assert 4 <= len(ds) <= 8 and n == sorted(n) and n[0] == 1 and n[-1] == 2, n
fin = final(T + "/ab.json")
last_a = [d["jobs"][0]["read"]["total_ios"] for d in ds]
b = [d["jobs"][1]["write"]["total_ios"] for d in ds if len(d["jobs"]) == 2]
assert last_a == sorted(last_a) and last_a[-1] == fin[0]["read"]["ops"], (last_a, fin)
assert b == sorted(b) and b[-1] == fin[1]["write"]["ops"] and len(b) >= 2, (b, fin)
assert all(d["jobs"][0]["read"]["total_ios"] == fin[0]["read"]["ops"] for d in ds if len(d["jobs"]) == 2), last_a
print("json", ios, "terse", kb, rt, "output", n, b)
PY
echo "--status-interval writes fio's periodic reports"
