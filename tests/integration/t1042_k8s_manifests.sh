#!/usr/bin/env bash
# deploy/k8s/ validated offline (no cluster here): tests/integration/py/check_k8s.py
# accepts the shipped manifests, and refuses copies broken in the ways that
# would stop a fleet (each broken copy must be named for what is wrong).
. "$(dirname "$0")/lib.sh"
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3   # the apt python3-yaml
$PY -c 'import yaml' 2>/dev/null || skip "python3-yaml is missing (scripts/install-deps.sh)"
[ -x "$AGENT" ] && [ -x "$NFSTORM" ] || fail "build first (make)"
CHECK=$ROOT/tests/integration/py/check_k8s.py
"$AGENT" --help >"$T/agent.help" 2>&1
"$NFSTORM" --help >"$T/run.help" 2>&1

$PY "$CHECK" "$ROOT/deploy/k8s" "$T/agent.help" "$T/run.help" >"$T/ok.out" 2>&1 \
  || fail "the shipped manifests do not pass: $(cat "$T/ok.out")"
grep -q '^k8s: 10 objects ok (image registry.example/nfstorm:0.1, coordinator port 7879)$' "$T/ok.out" \
  || fail "unexpected summary: $(cat "$T/ok.out")"

# The plan in the ConfigMap is a plan nfstorm accepts, as 2 agents would run it.
$PY - "$ROOT/deploy/k8s/20-plan.yaml" "$T/plan.fio" <<'P' || fail "no plan in the ConfigMap"
import sys, yaml
open(sys.argv[2], "w").write(yaml.safe_load(open(sys.argv[1]))["data"]["plan.fio"])
P
"$NFSTORM" run "$T/plan.fio" --dry-run --local 2 >"$T/dry" 2>&1 || fail "the ConfigMap's plan is refused: $(cat "$T/dry")"
grep -q "^  agent 1 (.*): 1 job, 4 threads$" "$T/dry" || fail "dry run of the plan: $(head -5 "$T/dry")"

# broken NAME REGEX SED_FILE SED_EXPR: a copy with SED_EXPR applied to SED_FILE
# is refused with a line matching REGEX.
n=0
broken() {
  local name=$1 re=$2 file=$3 expr=$4
  rm -rf "$T/k8s" && cp -r "$ROOT/deploy/k8s" "$T/k8s"
  sed -i -e "$expr" "$T/k8s/$file"
  cmp -s "$T/k8s/$file" "$ROOT/deploy/k8s/$file" && fail "$name: the edit changed nothing"
  $PY "$CHECK" "$T/k8s" "$T/agent.help" "$T/run.help" >"$T/bad.out" 2>&1 && fail "$name: accepted"
  grep -Eq -- "$re" "$T/bad.out" || fail "$name: output does not match /$re/: $(cat "$T/bad.out")"
  n=$((n + 1))
}
broken "env typo" 'NFSTORM_AGENT_ALOW: nfstorm-agent has no option --alow' \
  50-agents.yaml 's/NFSTORM_AGENT_ALLOW$/NFSTORM_AGENT_ALOW/'
broken "service port" 'Service nfstorm-coordinator has no port 7879' \
  40-coordinator.yaml 's/^      port: 7879/      port: 7000/'
broken "listen port" 'listens on 7999 but declares containerPort \[7879\]' \
  40-coordinator.yaml 's/0.0.0.0:7879/0.0.0.0:7999/'
broken "selector" 'DaemonSet selector does not match its pod template' \
  50-agents.yaml '0,/component: agent/! {0,/component: agent/ s/component: agent/component: agnt/}'
broken "missing secret" 'refers to Secret nfstorm-secret, not in the set' \
  10-secret.yaml 's/name: nfstorm-secret/name: other-secret/'
broken "missing plan key" 'takes key plan.fio that ConfigMap nfstorm-plan lacks' \
  20-plan.yaml 's/plan.fio: |/other.fio: |/'
broken "secret mode" 'readable by group or others' \
  50-agents.yaml 's/defaultMode: 0400/defaultMode: 0440/'
broken "images" 'containers use different images' \
  50-agents.yaml 's|registry.example/nfstorm:0.1|registry.example/nfstorm:0.2|'
broken "efs handle" 'EFS volumeHandle .* is not fs-ID' \
  30-storage.yaml 's/volumeHandle: fs-XXXX/volumeHandle: vol-1234/'
broken "run option" 'nfstorm run has no option --expct' \
  40-coordinator.yaml 's/- --expect$/- --expct/'
broken "kind" 'unknown apiVersion/kind apps/v1/DeamonSet' \
  50-agents.yaml 's/^kind: DaemonSet/kind: DeamonSet/'
broken "dial target" 'NFSTORM_AGENT_COORDINATOR nfstorm-coord.nfstorm.svc:7879: no Service nfstorm-coord' \
  50-agents.yaml 's/nfstorm-coordinator.nfstorm.svc/nfstorm-coord.nfstorm.svc/'
broken "results volume" '--json /tmp/result.json is not on a writable persistent volume' \
  40-coordinator.yaml 's|/results/result.json|/tmp/result.json|'
broken "allow dir" 'allowed directory /data/nfstorm is not on a writable persistent volume' \
  50-agents.yaml 's|value: /mnt/efs/nfstorm|value: /data/nfstorm|'
broken "service links" 'agent pods need enableServiceLinks: false' \
  50-agents.yaml '/enableServiceLinks: false/d'
[ $n -eq 15 ] || fail "ran $n broken copies, not 15"
echo "ok: deploy/k8s passes; 15 broken copies refused"
