#!/usr/bin/env bash
# kill -9 of the coordinator mid-phase: every agent stops its I/O (files
# stop growing), accepts a new run afterwards, and the journal holds every
# interval received before the kill.  A coordinator that goes silent
# without closing (SIGSTOP) is left behind when the agents' lease expires.
# SIGINT: agents are told to stop, partial results are written, exit 130.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
addrs=()
for i in 0 1; do AGENT_AUTH="--insecure --lease 3s" start_agent "$D"; addrs+=("$AGENT_ADDR"); done
list=$(IFS=,; echo "${addrs[*]}")
# any write changes it (a file's size says nothing: it has its full size
# before the first write); sparse files, not 2 x 4 GiB preallocated
size_sum() { files_sig "$D"; }
seqwrite=(--quiet --name=w --rw=write --bs=64k --size=4g --runtime=60 --time_based --rate=20m --fallocate=none)

# 1. kill -9
"$NFSTORM" run --agents "$list" --json "$T/k.json" "${seqwrite[@]}" >"$T/o" 2>&1 &
c=$!
wait_intervals "$T/k.json.journal" 4 || fail "no 2 intervals of the 2 agents: $(tail -n2 "$T/o")"
g1=$(size_sum); sleep 0.5; g2=$(size_sum)      # a window the files must grow in
[ "$g2" != "$g1" ] || fail "the files did not grow while the run was alive ($g1 -> $g2): this check cannot see"
kill -9 $c; wait $c 2>/dev/null
sleep 1.5
a=$(size_sum); sleep 2; b=$(size_sum)
[ "$a" = "$b" ] || fail "files still growing after the coordinator died ($a -> $b)"
n=$(grep -c '"type":"interval"' "$T/k.json.journal")
[ "$n" -ge 4 ] || fail "journal holds $n intervals, want >= 4 (2 agents x 2-3 s)"
# a run cut short: reported with what arrived, exit 3 (t0861 has the details)
timeout 20 "$NFSTORM" report "$T/k.json.journal" --json "$T/kj.json" >"$T/jo" 2>&1
[ $? -eq 3 ] || fail "journal of a killed run: want exit 3: $(tail -n1 "$T/jo")"
py "$T/kj.json" "$n" <<'PY'
import json, sys
import iv_agents
r = json.load(open(sys.argv[1])); n = int(sys.argv[2])
ints = r["phases"][0]["intervals"]
got = sum(1 for i in ints for a in iv_agents.agents_n(i, len(r["agents"])) if a["ops"].get("write", {}).get("ops", 0) > 0)
assert got == n, (got, n)
w = r["phases"][0]["ops"]["write"]
assert w["ops"] > 0 and w["bytes"] == w["ops"] * 65536, w
PY
timeout 30 "$NFSTORM" run --agents "$list" --quiet --name=x --rw=read --bs=4k --size=1m >"$T/o" 2>&1 \
  || fail "agents do not accept a new run after the coordinator died: $(tail -n1 "$T/o")"

# 2. a silent coordinator: the lease (3 s) stops the I/O
"$NFSTORM" run --agents "$list" --json "$T/s.json" "${seqwrite[@]}" >"$T/o" 2>&1 &
c=$!
wait_intervals "$T/s.json.journal" 4 || fail "silent coordinator: no 2 intervals of the 2 agents: $(tail -n2 "$T/o")"
kill -STOP $c
expired() { grep -l "lease expired" "$T"/agent.*.log 2>/dev/null | wc -l; }
for _ in $(seq 300); do [ "$(expired)" -ge 2 ] && break; sleep 0.05; done
[ "$(expired)" -ge 2 ] || fail "the agents' leases did not expire 15 s after the coordinator went silent"
# the stop follows the log line: wait until a 0.5 s window sees no write (10 s at most)
for _ in $(seq 20); do a=$(size_sum); sleep 0.5; [ "$(size_sum)" = "$a" ] && break; done
a=$(size_sum); sleep 2; b=$(size_sum)
kill -9 $c; kill -CONT $c 2>/dev/null; wait $c 2>/dev/null
[ "$a" = "$b" ] || fail "files still growing after the lease expired ($a -> $b)"
grep -q "lease expired" "$T"/agent.*.log || fail "no lease-expired log line"

# 3. SIGINT: partial results, exit 130
"$NFSTORM" run --agents "$list" --json "$T/i.json" "${seqwrite[@]}" >"$T/o" 2>&1 &
c=$!
# (2 s into the phase: 2 agents' interval lines; the check below wants > 1.5 s)
wait_intervals "$T/i.json.journal" 4 || fail "the SIGINT phase did not start: $(tail -n2 "$T/o")"
sleep 0.5
kill -INT $c
timeout 20 tail --pid=$c -f /dev/null; wait $c; rc=$?
[ $rc -eq 130 ] || fail "exit status $rc after SIGINT, want 130: $(tail -n2 "$T/o")"
py "$T/i.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]; w = p["ops"]["write"]
assert w["ops"] > 0 and w["ops"] == sum(a["ops"]["write"]["ops"] for a in p["agents"]), w
assert 1.5 < p["duration_s"] < 10, p["duration_s"]
PY
# 4. --local agents die with their coordinator, even one killed with -9
"$NFSTORM" run --local 2 --quiet --name=l --rw=read --bs=4k --size=1m --runtime=30 --time_based >"$T/o" 2>&1 &
c=$!
for _ in $(seq 200); do [ "$(pgrep -P $c | wc -l)" -ge 2 ] && break; sleep 0.05; done
kids=$(pgrep -P $c | tr '\n' ' ')
[ -n "$kids" ] || fail "no --local agents found under the coordinator"
kill -9 $c; wait $c 2>/dev/null
alive() {  # the --local agents still running (not gone, not zombies)
  local k st n=0
  for k in $kids; do
    st=$(ps -o stat= -p "$k" 2>/dev/null)
    case "$st" in ""|Z*) ;; *) n=$((n + 1));; esac
  done
  echo $n
}
for _ in $(seq 100); do [ "$(alive)" -eq 0 ] && break; sleep 0.05; done
[ "$(alive)" -eq 0 ] || fail "--local agents outlived their coordinator by 5 s: $(ps -o pid=,stat= -p "${kids// /,}" 2>/dev/null)"
echo "coordinator failures handled"
