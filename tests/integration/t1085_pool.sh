#!/usr/bin/env bash
# A standing pool: `nfstorm serve` keeps three dial-in agents (labels zb,
# zc, za), `run --pool` submits two plans in a row to it.  Both runs get
# the same indices (sorted by label: za=0, zb=1, zc=2, in the file names),
# 16 writes per agent, the text report on the submitter's stdout, its
# --json written (with its journal) and read by `nfstorm report`, with the
# same keys as a normal run's JSON.  Between runs the agents rejoin the pool
# at once (serve logs them), without anyone gathering them again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
. "$(dirname "$0")/pool_lib.sh"
D=$T/d; mkdir -p "$D"

start_serve
dial_agent b "$D" --label zb
dial_agent c "$D" --label zc
dial_agent a "$D" --label za
pool_has 3
grep -Eq '^nfstorm serve: agent joined: [^ ]+ \(127\.0\.0\.1:[0-9]+\) labels=za  \[[123] in the pool\]$' "$T/serve.log" ||
  fail "no 'agent joined' line for za: $(cat "$T/serve.log")"

cat >"$T/p.fio" <<FIO
[global]
rw=write
bs=4k
size=64k
[ja]
agents=@za
filename=$D/za.\${agent}
[jb]
agents=@zb
filename=$D/zb.\${agent}
[jc]
agents=@zc
filename=$D/zc.\${agent}
FIO
for run in 1 2; do
  rm -f "$D"/z*
  pool_has 3
  prun "$T/o$run" "$T/e$run" "$T/p.fio" --json "$T/r$run.json" --label pool$run ||
    fail "run $run: exit $?: $(tail -n 3 "$T/e$run")"
  [ "$(cd "$D" && ls z* | tr '\n' ' ')" = "za.0 zb.1 zc.2 " ] ||
    fail "run $run: files $(cd "$D" && ls | tr '\n' ' ') (want za.0 zb.1 zc.2)"
  grep -q '^verdict: ok (exit status 0)$' "$T/o$run" || fail "run $run: no ok verdict on stdout: $(cat "$T/o$run")"
  grep -Eq '^(ja|jb|jc) +write seq +4KiB' "$T/o$run" || fail "run $run: no phase rows on stdout: $(cat "$T/o$run")"
  grep -q '^phase 1/1 ja: started on 3 agents$' "$T/e$run" || fail "run $run: no live lines on stderr: $(cat "$T/e$run")"
  [ -s "$T/r$run.json.journal" ] || fail "run $run: no journal next to the JSON"
  "$NFSTORM" report "$T/r$run.json" >"$T/rep$run" || fail "run $run: nfstorm report cannot read the pool's JSON"
  grep -q '^verdict: ok' "$T/rep$run" || fail "run $run: report: $(cat "$T/rep$run")"
  "$NFSTORM" report "$T/r$run.json.journal" >"$T/repj$run" 2>&1 || fail "run $run: nfstorm report cannot read the journal: $(cat "$T/repj$run")"
done
grep -c '^nfstorm serve: run from 127.0.0.1:[0-9]* ended: exit status 0$' "$T/serve.log" | grep -qx 2 ||
  fail "serve did not log two ended runs: $(cat "$T/serve.log")"

# a normal run's JSON (--listen, the same agents after the pool stops) has the same keys
pool_has 3
kill "$SPID"; wait "$SPID" 2>/dev/null
grep -q '^nfstorm serve: stopped' "$T/serve.log" || fail "serve did not stop on SIGTERM: $(tail -n 3 "$T/serve.log")"
crun "$T/o3" "$T/p.fio" --expect 3 --expect-timeout 30s --json "$T/r3.json" || fail "normal run: $(tail -n 3 "$T/o3")"
py "$T/r1.json" "$T/r2.json" "$T/r3.json" <<'PY'
import json, sys
rs = [json.load(open(f)) for f in sys.argv[1:]]
for i, r in enumerate(rs):
    assert len(r["agents"]) == 3, (i, r["agents"])
    assert [a["id"] for a in r["agents"]] == [0, 1, 2]
    assert all(a["system"]["kernel"] for a in r["agents"]), r["agents"]
    assert len(r["phases"]) == 1, r["phases"]
    w = [a["ops"]["write"]["ops"] for a in r["phases"][0]["agents"]]
    assert w == [16, 16, 16], (i, w)
# each run had the agents' fresh connections: they dialled again in between
assert not {a["addr"] for a in rs[0]["agents"]} & {a["addr"] for a in rs[1]["agents"]}
assert rs[0]["label"] == "pool1" and rs[1]["label"] == "pool2", (rs[0].get("label"), rs[1].get("label"))
def keys(o, path=""):
    out = set()
    if isinstance(o, dict):
        for k, v in o.items():
            out.add(path + "/" + k)
            out |= keys(v, path + "/" + k)
    elif isinstance(o, list) and o:
        out |= keys(o[0], path + "[]")
    return out
# the same schema as a normal run's (times, labels and numbers differ; keys do not)
ign = lambda s: {k for k in s if not k.startswith("/label")}
a, b = ign(keys(rs[0])), ign(keys(rs[2]))
assert a == b, ("pool only:", sorted(a - b)[:10], "normal only:", sorted(b - a)[:10])
PY
exit 0
