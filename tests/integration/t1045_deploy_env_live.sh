#!/usr/bin/env bash
# The deploy examples' agent configuration drives real agents: the
# environment of deploy/k8s/50-agents.yaml (dial-in) and of
# deploy/systemd/agent.env (listening), with only their paths and addresses
# made local, configures an nfstorm-agent given no options at all; a real
# coordinator runs a plan on it (--listen/--expect for the dial-in agent,
# --agents for the listening one) and the results are exact.  Skips until
# the agent has the dial-in options (fleet contract, issue 10).
. "$(dirname "$0")/lib.sh"
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
$PY -c 'import yaml' 2>/dev/null || skip "python3-yaml is missing (scripts/install-deps.sh)"
"$AGENT" --help 2>&1 | grep -q -- '--coordinator' || skip "this nfstorm-agent has no --coordinator yet (dial-in not built)"
head -c 32 /dev/urandom | base64 >"$T/secret"; chmod 600 "$T/secret"
mkdir -p "$T/allow-k8s" "$T/allow-sd"
port=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# env_of SOURCE: the NFSTORM_AGENT_* assignments of SOURCE, localised, one per line.
env_of() {
  $PY - "$1" "$T" "$port" <<'P'
import sys, yaml
src, t, port = sys.argv[1:]
env = {}
if src.endswith(".yaml"):
    for doc in yaml.safe_load_all(open(src)):
        if doc and doc.get("kind") == "DaemonSet":
            for e in doc["spec"]["template"]["spec"]["containers"][0]["env"]:
                env[e["name"]] = e["value"]
else:
    for line in open(src):
        line = line.strip()
        if line.startswith("NFSTORM_AGENT_") and "=" in line:
            k, v = line.split("=", 1)
            env[k] = v
local = {"NFSTORM_AGENT_SECRET_FILE": t + "/secret",
         "NFSTORM_AGENT_COORDINATOR": "127.0.0.1:" + port,
         "NFSTORM_AGENT_LISTEN": "127.0.0.1:0",
         "NFSTORM_AGENT_ALLOW": t + ("/allow-k8s" if src.endswith(".yaml") else "/allow-sd")}
for k in env:
    if k in local:
        env[k] = local[k]
if not src.endswith(".yaml"):   # the systemd units pass the secret on the command line
    env["NFSTORM_AGENT_SECRET_FILE"] = local["NFSTORM_AGENT_SECRET_FILE"]
for k, v in sorted(env.items()):
    print(f"{k}={v}")
P
}

# ---- Kubernetes: a dial-in agent configured by the DaemonSet's env ----
mapfile -t kenv < <(env_of "$ROOT/deploy/k8s/50-agents.yaml")
[ ${#kenv[@]} -eq 5 ] || fail "DaemonSet env: ${kenv[*]}"
env -i PATH="$PATH" "${kenv[@]}" "$AGENT" >"$T/k8s-agent.out" 2>"$T/k8s-agent.err" &
PIDS+=($!); kpid=$!
timeout 60 "$NFSTORM" run --listen "127.0.0.1:$port" --expect 1 --expect-timeout 20s --secret-file "$T/secret" \
  --quiet --json "$T/k8s.json" --name=k --rw=write --bs=4k --size=1M >"$T/k8s-run.out" 2>&1 \
  || fail "dial-in run: $(tail -5 "$T/k8s-run.out"); agent: $(tail -5 "$T/k8s-agent.err")"
py "$T/k8s.json" "$T/allow-k8s" <<'P'
import json, os, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
assert len(ph["agents"]) == 1, ph["agents"]
w = ph["ops"]["write"]
assert w["ops"] == 256 and w["bytes"] == 1048576 and w["errors"] == 0, w
assert os.path.getsize(os.path.join(sys.argv[2], "k.0.0.0")) == 1048576, os.listdir(sys.argv[2])
P
kill -0 "$kpid" 2>/dev/null || fail "the dial-in agent did not stay up after the run: $(tail -3 "$T/k8s-agent.err")"

# ---- systemd: a listening agent configured by agent.env ----
mapfile -t senv < <(env_of "$ROOT/deploy/systemd/agent.env")
env -i PATH="$PATH" "${senv[@]}" "$AGENT" >"$T/sd-agent.out" 2>"$T/sd-agent.err" &
PIDS+=($!)
for _ in $(seq 50); do grep -q '^listening on ' "$T/sd-agent.out" 2>/dev/null && break; sleep 0.1; done
addr=$(sed -n 's/^listening on //p' "$T/sd-agent.out")
[ -n "$addr" ] || fail "agent.env's agent did not listen: $(cat "$T/sd-agent.err")"
timeout 60 "$NFSTORM" run --agents "$addr" --secret-file "$T/secret" --quiet --json "$T/sd.json" \
  --name=s --rw=write --bs=4k --size=512k >"$T/sd-run.out" 2>&1 || fail "listening run: $(tail -5 "$T/sd-run.out")"
py "$T/sd.json" "$T/allow-sd" <<'P'
import json, os, sys
w = json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]
assert w["ops"] == 128 and w["bytes"] == 524288 and w["errors"] == 0, w
assert os.path.getsize(os.path.join(sys.argv[2], "s.0.0.0")) == 524288, os.listdir(sys.argv[2])
P
echo "ok: the DaemonSet's env ran a dial-in agent (256 writes), agent.env a listening one (128 writes)"
