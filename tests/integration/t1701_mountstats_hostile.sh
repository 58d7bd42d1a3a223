#!/usr/bin/env bash
# Hostile mountstats contents (the kernel's file, here a fixture through
# NFSTORM_TEST_MOUNTSTATS): an operation listed twice, an operation name
# with a byte the protocol refuses ('/'), 100 operations (more than the
# wire's MS_OPS_MAX, 96).  The agent must not send what the coordinator
# refuses (it failed the run: "bad interval: ... lists 'READ' twice"): the run succeeds with one note per agent ("malformed"), the
# agent is not dropped as a broken peer, and the phase's ops are exact.
# A file type with an escape sequence in it is quoted in the note with '?'
# for the strange bytes (the note's control byte failed the run).
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
M=$(stat -c %m "$D")
head_of() {
  echo "device 10.9.8.7:/export mounted on $M with fstype nfs statvers=1.1"
  printf '\tage:\t100\n'
  printf '\txprt:\ttcp 900 1 1 0 0 10 10 0 9000 5 32 100 10\n'
  printf '\tper-op statistics\n'
}
# fixture NAME N: the file with counters at N (the run starts at 1, moves to 5)
fixture() {
  head_of
  case $1 in
    dup) printf '\t        READ: %s 1 0 10 10 0 1 1 0\n' "$2" "$2" ;;
    slash) printf '\t     RE/AD: %s 1 0 10 10 0 1 1 0\n' "$2" ;;
    many) for i in $(seq 100); do printf '\t     OP%03d: %s 1 0 10 10 0 1 1 0\n' "$i" "$2"; done ;;
  esac
}
for f in dup slash many; do
  fixture $f 1 >"$T/$f"; fixture $f 5 >"$T/$f.later"
  export NFSTORM_TEST_MOUNTSTATS=$T/$f
  start_agent "$D"
  unset NFSTORM_TEST_MOUNTSTATS
  timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --name=m --rw=write --bs=4k --size=256k \
    "--filename=$D/$f" --runtime=2 --time_based --rate_iops=100 --json "$T/$f.json" \
    --timeseries "$T/$f.ts" >"$T/$f.out" 2>&1 &
  RUN=$!; PIDS+=("$RUN")
  for _ in $(seq 100); do grep -q '"agent":0' "$T/$f.ts" 2>/dev/null && break; sleep 0.05; done
  mv "$T/$f.later" "$T/$f"
  wait "$RUN" || fail "$f: run failed: $(tail -n3 "$T/$f.out")"
  py "$T/$f.json" "$D" "$M" "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); f = sys.argv[4]
p = d["phases"][0]; a = p["agents"][0]
w = p["ops"]["write"]
assert 150 <= w["ops"] <= 210 and w["bytes"] == w["ops"] * 4096 and w["errors"] == 0, w
assert a["ops"]["write"]["ops"] == w["ops"], a["ops"]
ms = a["mountstats"]
assert ms == {"mount": "", "note": "%s: no mountstats for %s (malformed)" % (sys.argv[2], sys.argv[3])}, ms
assert d["verdict"] == "ok", d["verdict"]
PY
done
printf 'device 10.9.8.7:/export mounted on %s with fstype nf\033[2Js statvers=1.1\n' "$M" >"$T/ctl"
export NFSTORM_TEST_MOUNTSTATS=$T/ctl
start_agent "$D"
unset NFSTORM_TEST_MOUNTSTATS
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --name=m --rw=write --bs=4k --size=256k \
  "--filename=$D/ctl" --json "$T/ctl.json" >"$T/ctl.out" 2>&1 || fail "ctl: run failed: $(tail -n3 "$T/ctl.out")"
grep -qxF "note: agent 0: $D: not an NFS mount (nf??2Js); no mountstats" "$T/ctl.out" ||
  fail "ctl: no note: $(grep note "$T/ctl.out" | cat -v)"
py "$T/ctl.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
assert p["ops"]["write"]["ops"] == 64 and p["agents"][0]["ops"]["write"]["ops"] == 64, p["ops"]
PY
echo "duplicate, badly named and too many mountstats ops: runs exact, notes, no agent dropped"
