#!/usr/bin/env bash
# Issue 14, kernel mounts: an agent samples /proc/self/mountstats for the
# mount under its plan's directory and reports interval deltas.  No kernel
# NFS client exists here, so the agent reads a fixture instead
# (NFSTORM_TEST_MOUNTSTATS, test-only) naming the real mount point of the
# test's directory as an NFSv3 mount; the test advances the counters once
# while the run goes (mv of a second fixture).  Asserted through a real
# agent: the JSON's per-phase and per-interval deltas (exactly B - A, the
# intervals summing to the phase), the text's mountstats lines, the time
# series, re-renders from the result and the journal; a garbled or unlisting
# fixture gives one clear note, not an error.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
M=$(stat -c %m "$D")
MS=$T/mountstats

# fixture FILE READ_OPS READ_RTT WRITE_OPS SENDS CONNECTS
fixture() {
  { echo "device rootfs mounted on /proc/fake with fstype proc"
    echo "device 10.9.8.7:/export mounted on $M with fstype nfs statvers=1.1"
    printf '\topts:\trw,vers=3,rsize=1048576,wsize=1048576,hard,proto=tcp,timeo=600,addr=10.9.8.7\n'
    printf '\tage:\t100\n'
    printf '\tRPC iostats version: 1.1  p/v: 100003/3 (nfs)\n'
    printf '\txprt:\ttcp 900 1 %s 0 0 %s %s 1 9000 5 32 100 10\n' "$6" "$5" "$5"
    printf '\tper-op statistics\n'
    printf '\t        NULL: 1 1 0 44 24 0 0 0 0\n'
    printf '\t     GETATTR: 50 50 0 6000 5600 1 20 22 0\n'
    printf '\t        READ: %s %s 1 13600 410000 12 %s 915 2\n' "$2" "$(( $2 + 3 ))" "$3"
    printf '\t       WRITE: %s %s 0 845000 27200 40 1800 1850 0\n' "$4" "$4"
  } >"$1"
}
fixture "$MS" 100 900 200 5000 2
fixture "$T/later" 350 2900 230 5400 3

export NFSTORM_TEST_MOUNTSTATS=$MS
start_agent "$D"
unset NFSTORM_TEST_MOUNTSTATS
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --name=m --rw=randread --bs=4k --size=1m \
  "--filename=$D/f" --runtime=2 --time_based --json "$T/r.json" --timeseries "$T/r.ts" \
  >"$T/out" 2>&1 &
RUN=$!; PIDS+=("$RUN")
# the counters move once the first interval is in (base read at the start)
for _ in $(seq 100); do grep -q '"agent":0' "$T/r.ts" 2>/dev/null && break; sleep 0.05; done
grep -q '"agent":0' "$T/r.ts" || fail "no interval in the time series: $(tail -n3 "$T/out")"
mv "$T/later" "$MS"
wait "$RUN"; rc=$?
[ $rc -eq 0 ] || fail "run exit $rc: $(tail -n3 "$T/out")"

py "$T/r.json" "$M" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); mount = sys.argv[2]
ph = d["phases"][0]; a = ph["agents"][0]
ms = a["mountstats"]
assert ms["mount"] == mount, ms
assert "note" not in ms, ms
want = {"READ": dict(ops=250, ntrans=250, timeouts=0, bytes_sent=0, bytes_recv=0, queue_ms=0,
                     rtt_ms=2000, execute_ms=0, errors=0),
        "WRITE": dict(ops=30, ntrans=30, timeouts=0, bytes_sent=0, bytes_recv=0, queue_ms=0,
                      rtt_ms=0, execute_ms=0, errors=0)}
assert ms["per_op"] == want, ms["per_op"]
assert ms["xprt"] == dict(connects=1, sends=400, recvs=400, bad_xids=0, req_u=0, backlog_u=0), ms["xprt"]
# the intervals sum to the phase, and exactly one carried the change
tot = {}
moved = 0
for k, iv in enumerate(ph["intervals"]):
    c = iv["client"]           # columns, one element per agent; statics in the first only
    assert "sent" not in c and ("nic" in c) == (k == 0), c
    assert k or (c["nic"] == ["lo"] and c["threads"] == [1]), c
    assert c["mountstats"][0]["mount"] == mount
    per = c["mountstats"][0]["per_op"]
    moved += bool(per)
    for op, v in per.items():
        for k, n in v.items():
            tot.setdefault(op, {}).setdefault(k, 0)
            tot[op][k] += n
assert moved == 1, [iv["client"]["mountstats"] for iv in ph["intervals"]]
assert tot == want, tot
h = a["host"]
assert h["nic"]["name"] == "lo" and h["threads"] == 1 and h["cores"] >= 1, h
PY
grep -q "^mountstats: agent 0 $M: xprt sends 400 recvs 400 bad_xids 0 connects 1 backlog 0.00$" "$T/out" \
  || fail "no mountstats line in the text: $(grep -A3 mountstats "$T/out")"
grep -Eq '^  READ +250 ops .* rtt 8\.000 exe 0\.000 queue 0\.000 ms/op retrans 0 timeouts 0 errors 0$' "$T/out" \
  || fail "no READ line: $(grep -A3 mountstats "$T/out")"
py "$T/r.ts" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
per = [l for l in lines if l.get("agent") == 0]
assert per and all(isinstance(l["host"], str) and "host" in l["client"] and "mountstats" in l["client"]
                   for l in per), per[:1]
assert sum(l["client"]["mountstats"]["per_op"].get("READ", {}).get("ops", 0) for l in per) == 250
PY
# re-rendered from the result and from its journal: the same lines, the same JSON
for src in r.json r.json.journal; do
  timeout 30 "$NFSTORM" report "$T/$src" --json "$T/re.json" >"$T/re" 2>&1 || fail "report $src: $(tail -n2 "$T/re")"
  diff <(grep -A3 '^mountstats:' "$T/out") <(grep -A3 '^mountstats:' "$T/re") >/dev/null \
    || fail "mountstats re-rendered from $src differ: $(grep -A3 '^mountstats:' "$T/re")"
  cmp -s "$T/r.json" "$T/re.json" || fail "JSON re-rendered from $src differs"
done

# a garbled fixture: one note, the run succeeds
printf 'device 10.9.8.7:/export mounted on %s with fstype nfs statvers=1.1\n\tper-op statistics\n\t  READ: 1 x\n' "$M" >"$T/bad"
export NFSTORM_TEST_MOUNTSTATS=$T/bad
start_agent "$D"
unset NFSTORM_TEST_MOUNTSTATS
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --name=m --rw=read --bs=4k --size=256k \
  "--filename=$D/g" --json "$T/g.json" >"$T/gout" 2>&1 || fail "garbled: run failed: $(tail -n3 "$T/gout")"
grep -qx "note: agent 0: $D: no mountstats for $M (malformed)" "$T/gout" \
  || fail "no note for a garbled mountstats: $(grep note "$T/gout")"
py "$T/g.json" "$D" "$M" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ms = d["phases"][0]["agents"][0]["mountstats"]
assert ms == {"mount": "", "note": "%s: no mountstats for %s (malformed)" % (sys.argv[2], sys.argv[3])}, ms
PY
# a mountstats file that does not list the mount: "not listed"
printf 'device 10.9.8.7:/export mounted on /elsewhere with fstype nfs statvers=1.1\n' >"$T/other"
export NFSTORM_TEST_MOUNTSTATS=$T/other
start_agent "$D"
unset NFSTORM_TEST_MOUNTSTATS
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --name=m --rw=read --bs=4k --size=256k \
  "--filename=$D/h" >"$T/hout" 2>&1 || fail "not listed: run failed: $(tail -n3 "$T/hout")"
grep -qx "note: agent 0: $D: no mountstats for $M (not listed)" "$T/hout" \
  || fail "no note for an unlisted mount: $(grep note "$T/hout")"
echo "mountstats fixture: READ +250 ops, WRITE +30, sends +400 over one interval; text, JSON, time series, re-render; garbled or unlisted -> a note"
