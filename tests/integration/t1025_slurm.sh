#!/usr/bin/env bash
# Slurm launch on a real single-node Slurm (tests/slurm.sh: munged,
# slurmctld, slurmd started here): `srun -n 4` agents dialling
# 127.0.0.1:PORT next to `nfstorm run --listen --expect 4`; the JSON has
# the 4 agents, each with ops; ending the step ends every agent.  Then
# deploy/slurm/nfstorm.sbatch through `sbatch --wait`: its job's exit
# status is the run's and its JSON holds the one node's agent.
# Skips (77) only where Slurm cannot start here.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
. "$ROOT/tests/slurm.sh"
trap 'slurm_stop; cleanup' EXIT
t0=$(date +%s%N)
slurm_start; rc=$?
[ $rc = 2 ] && skip "Slurm cannot start here: $SLURM_WHY"
[ $rc = 0 ] || fail "Slurm did not start"
up_ms=$(( ($(date +%s%N) - t0) / 1000000 ))

D=$T/slurm-agents-$$; mkdir -p "$D"
# -O: 4 tasks on the node's 2 CPUs; each task an agent (null engine below)
srun -n 4 -O --kill-on-bad-exit=0 "$AGENT" --coordinator 127.0.0.1:$CPORT --secret-file "$SECRET" \
  --allow "$D" --label slurm >"$T/srun.log" 2>&1 &
SRUN=$!
PIDS+=("$SRUN")
crun "$T/o1" --name=n --ioengine=null --rw=randread --bs=4k --size=1m --rate_iops=200 --time_based \
  --runtime=1s --expect 4 --expect-timeout 20s --json "$T/r1.json" || fail "run: exit $?: $(tail -n 5 "$T/o1")"
[ "$(grep -c '^nfstorm: agent joined: ' "$T/o1")" = 4 ] || fail "not 4 'agent joined' lines: $(grep joined "$T/o1")"
py "$T/r1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["agents"]) == 4, r["agents"]
ops = [a["ops"]["read"]["ops"] for a in r["phases"][0]["agents"]]
assert all(o > 0 for o in ops), ops
PY
[ "$(squeue -h -o %i | wc -l)" = 1 ] || fail "the agents' step is not running: $(squeue)"
# ending the job step (scancel, as the end of an allocation does) ends every agent
scancel --quiet "$(squeue -h -o %i | head -1)"
for _ in $(seq 50); do [ -z "$(pgrep -f -- "$D")" ] && break; sleep 0.1; done
[ -z "$(pgrep -f -- "$D")" ] || fail "agents outlived their job step: $(pgrep -af -- "$D")"
wait "$SRUN" 2>/dev/null

# the sbatch example (deploy/slurm, F1's): one node, one agent
SB=$ROOT/deploy/slurm/nfstorm.sbatch
sb=""
if [ -f "$SB" ]; then
  cat >"$T/p.fio" <<FIO
[w]
ioengine=null
rw=write
bs=4k
size=1m
rate_iops=100
time_based=1
runtime=1s
FIO
  ( cd "$T" && sbatch --wait --nodes=1 --output="$T/job.out" \
      --export=ALL,NFSTORM_PLAN=$T/p.fio,NFSTORM_SECRET_FILE=$SECRET,NFSTORM_ALLOW=$D,NFSTORM_PORT=$CPORT,NFSTORM_HOST=127.0.0.1,NFSTORM_BIN=$ROOT/bin,NFSTORM_RESULT=$T/sb,NFSTORM_EXPECT_TIMEOUT=20s \
      "$SB" ) >"$T/sbatch.out" 2>&1 || fail "sbatch --wait: exit $?: $(cat "$T/sbatch.out"; tail -n 5 "$T/job.out")"
  py "$T/sb.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["agents"]) == 1, r["agents"]
ops = r["phases"][0]["agents"][0]["ops"]["write"]["ops"]
assert ops > 0, ops
PY
  [ -z "$(pgrep -f -- "$D")" ] || fail "the sbatch job left agents running: $(pgrep -af -- "$D")"
  sb=", sbatch example ok"
fi
echo "ok: Slurm up in $up_ms ms; srun -n 4 agents joined, ops from each, gone after scancel$sb; total $(( ($(date +%s%N) - t0) / 1000000 )) ms"
