#!/usr/bin/env bash
# Agents that dial in: three agents (labels zb, za, zc) dial one coordinator
# port; `run --listen --expect 3` waits for them, prints who joined, sorts
# them by label (za=0, zb=1, zc=2, whatever order they dialled in), and two
# runs in a row give every agent the same index (${agent} in the file
# names).  agents=@LABEL picks dialled-in agents by their --label.  A
# fourth agent configured only through NFSTORM_AGENT_* variables joins the
# third run, with its two labels.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
D=$T/d; mkdir -p "$D"

dial_agent b "$D" --label zb
sleep 0.3
dial_agent c "$D" --label zc
sleep 0.3
dial_agent a "$D" --label za

# one job per label: each writes LABEL.${agent}, so the file names say
# which index each agent got
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
  crun "$T/o$run" "$T/p.fio" --expect 3 --expect-timeout 30s --json "$T/r$run.json" ||
    fail "run $run: exit $?: $(tail -n 3 "$T/o$run")"
  [ "$(cd "$D" && ls z* | tr '\n' ' ')" = "za.0 zb.1 zc.2 " ] ||
    fail "run $run: files $(cd "$D" && ls | tr '\n' ' ') (want za.0 zb.1 zc.2: indices sorted by label)"
  for f in za.0 zb.1 zc.2; do
    [ "$(stat -c %s "$D/$f")" = 65536 ] || fail "run $run: $f is $(stat -c %s "$D/$f") bytes, not 65536"
  done
  [ "$(grep -c '^nfstorm: agent joined: ' "$T/o$run")" = 3 ] || fail "run $run: not 3 'agent joined' lines: $(cat "$T/o$run")"
  for k in 1 2 3; do
    grep -Eq "^nfstorm: agent joined: [^ ]+ \(127\.0\.0\.1:[0-9]+\) labels=z[abc]  \[$k/3\]$" "$T/o$run" ||
      fail "run $run: no 'agent joined: HOST (ADDR) labels=..  [$k/3]' line: $(grep joined "$T/o$run")"
  done
done
# the JSON names the three agents in index order, each with 16 writes
py "$T/r1.json" "$T/r2.json" <<'PY'
import json, sys
for f in sys.argv[1:]:
    r = json.load(open(f))
    assert len(r["agents"]) == 3, (f, r["agents"])
    assert [a["id"] for a in r["agents"]] == [0, 1, 2]
    ph = r["phases"][0]
    w = [a["ops"]["write"]["ops"] for a in ph["agents"]]
    assert w == [16, 16, 16], (f, w)
    # each agent's --label is recorded with it, in index order
    assert [a.get("labels") for a in r["agents"]] == ["za", "zb", "zc"], [a.get("labels") for a in r["agents"]]
    # the system message they sent while the coordinator waited reached the run
    assert all(a["system"]["kernel"] and a["system"]["mem_bytes"] > 0 for a in r["agents"]), r["agents"]
PY
# the labels survive re-rendering: the JSON written again from the JSON and
# from the journal is the run's, byte for byte
for src in r1.json r1.json.journal; do
  "$NFSTORM" report "$T/$src" --json "$T/again.json" >/dev/null 2>&1 || fail "report $src --json failed"
  cmp -s "$T/r1.json" "$T/again.json" || fail "report $src --json differs from the run's JSON (a multi-job phase lost its njobs once)"
done
# the agents say they served two sessions and dialled again after each
for n in a b c; do
  grep -q "session 2 with coordinator 127.0.0.1:$CPORT over" "$T/$n.log" || fail "agent $n: no second session: $(tail -n 5 "$T/$n.log")"
done

# configuration from the environment alone
mkdir -p "$T/nowhere"
NFSTORM_AGENT_COORDINATOR=127.0.0.1:$CPORT NFSTORM_AGENT_SECRET_FILE=$SECRET \
  NFSTORM_AGENT_ALLOW=$T/nowhere,$D NFSTORM_AGENT_LABEL=zz,big NFSTORM_AGENT_QUIET=0 \
  "$AGENT" >"$T/env.log" 2>&1 &
PIDS+=($!)
cat >"$T/p2.fio" <<FIO
[jbig]
agents=@big
rw=write
bs=4k
size=8k
filename=$D/big.\${agent}
FIO
rm -f "$D"/*
crun "$T/o3" "$T/p2.fio" --expect 4 --expect-timeout 30s || fail "env agent run: $(tail -n 3 "$T/o3")"
grep -Eq "agent joined: [^ ]+ \(127\.0\.0\.1:[0-9]+\) labels=zz,big  \[[1-4]/4\]" "$T/o3" ||
  fail "the env-configured agent did not join with labels zz,big: $(grep joined "$T/o3")"
# labels sort "za" < "zb" < "zc" < "zz,big": it is agent 3
[ "$(cd "$D" && ls | tr '\n' ' ')" = "big.3 " ] || fail "env agent: files $(ls "$D") (want big.3)"
[ "$(stat -c %s "$D/big.3")" = 8192 ] || fail "env agent: big.3 is not 8192 bytes"
grep -q "allow $T/nowhere" "$T/env.log" && grep -q "allow $D" "$T/env.log" ||
  fail "NFSTORM_AGENT_ALLOW's list was not read: $(head -n 5 "$T/env.log")"

# --repeat with --listen: each repetition gathers the four agents again,
# with the same indices (the plan's agents=@LABEL resolved once)
rm -f "$D"/*
crun "$T/o4" "$T/p.fio" --expect 4 --expect-timeout 30s --repeat 2 --json "$T/set.json" ||
  fail "--listen --repeat 2: exit $?: $(tail -n 3 "$T/o4")"
[ "$(grep -c '^nfstorm: agent joined: ' "$T/o4")" = 8 ] || fail "--repeat 2: not 8 'agent joined' lines (4 per repetition)"
py "$T/set.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["repeat"] == 2 and len(s["repetitions"]) == 2, (s["repeat"], len(s["repetitions"]))
for r in s["repetitions"]:
    w = [a["ops"].get("write", {}).get("ops", 0) for a in r["phases"][0]["agents"]]
    assert w == [16, 16, 16, 0], w    # za, zb, zc write; the zz,big agent idles
PY
echo "ok: 3 dial-in agents sorted by label twice (za.0 zb.1 zc.2), env-configured agent joined as 3; --listen --repeat 2 gathered twice"
