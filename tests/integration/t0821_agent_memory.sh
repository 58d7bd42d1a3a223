#!/usr/bin/env bash
# Memory follows use (issue 9, defect 7): the agent's peak RSS (VmHWM) with
# 1024 and 4096 null-engine job threads and with 50000 metadata files per
# thread; plans that cannot fit are refused before anything starts, with
# the figures, and the agent serves the next run.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"

hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$AGENT_PID/status"; }   # KiB
# figures are for the release build: ASan's shadow memory and quarantine
# multiply them, so a SANITIZE=1 build checks everything but the sizes
san=0; ldd "$AGENT" | grep -q libasan && san=1

# 1. metadata names are generated, not stored: 50000 files (2 KiB of names
#    each before: ~100 MiB)
start_agent "$D"
timeout 120 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/md.json" --name=md --rw=metadata \
  --md_ops=create,unlink --nrfiles=50000 >"$T/o1" 2>&1 || fail "metadata run failed: $(tail -n1 "$T/o1")"
py "$T/md.json" <<'PY'
import json, sys
ops = json.load(open(sys.argv[1]))["phases"][0]["ops"]
assert ops["create"]["ops"] == 50000 and ops["unlink"]["ops"] == 50000, ops.keys()
PY
m=$(hwm); [ $san = 1 ] || [ "$m" -lt 40960 ] || fail "agent peak RSS $((m / 1024)) MiB for 50000 metadata files (want < 40 MiB)"
kill "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null

# 2. 1024 job threads on the null engine: well under 256 MiB (820 MB before)
start_agent "$D"
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/n.json" --name=n --ioengine=null \
  --rw=randread --bs=4k --size=1m --numjobs=1024 --runtime=2 --time_based >"$T/o2" 2>&1 \
  || fail "numjobs=1024 run failed: $(tail -n1 "$T/o2")"
r1024=$(hwm); [ $san = 1 ] || [ "$r1024" -lt 131072 ] || fail "agent peak RSS $((r1024 / 1024)) MiB with 1024 job threads (want < 128 MiB)"
check_merge "$T/n.json" randread 4096 1

# 3. 4096 threads (the maximum) run and merge exactly (OOM at 3.1 GB before)
timeout 90 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/m.json" --name=m --ioengine=null \
  --rw=read --bs=4k --size=64k --numjobs=4096 >"$T/o3" 2>&1 || fail "numjobs=4096 run failed: $(tail -n1 "$T/o3")"
py "$T/m.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["read"]["ops"] == 4096 * 16
PY
r4096=$(hwm); [ $san = 1 ] || [ "$r4096" -lt 524288 ] || fail "agent peak RSS $((r4096 / 1024)) MiB with 4096 job threads (want < 512 MiB)"

# 4. what cannot fit is refused up front, with the figures
expect_fail "64M file entries" \
  "agent 0 \(.*\): plan refused: phase 0 \('f'\) needs ~[0-9.]+GiB for 64 job threads and 64000000 files, [0-9.]+[GMT]iB available" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=f --ioengine=null --rw=read --bs=4k --filesize=4k \
  --nrfiles=1000000 --numjobs=64
expect_fail "1 TiB create buffer" \
  "agent 0 \(.*\): plan refused: phase 0 \('c'\) needs ~1TiB for 1 job thread and 1 file, [0-9.]+[GMT]iB available" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=c --rw=metadata --nrfiles=1 --filesize=1t
kill -0 "$AGENT_PID" || fail "agent died"
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=after --ioengine=null --rw=write --bs=4k \
  --size=1m >"$T/o4" 2>&1 || fail "agent does not serve after refusing: $(tail -n1 "$T/o4")"
echo "agent memory: 1024 threads $((r1024 / 1024)) MiB, 4096 threads $((r4096 / 1024)) MiB; oversized plans refused"
