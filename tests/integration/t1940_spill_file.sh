#!/usr/bin/env bash
# Issue 25 item 5 (a day of 100 agents under 256 MiB): the coordinator keeps
# a sealed interval's merged histograms and packed agent counters, and the
# agents' packed host samples, in an unlinked file in $TMPDIR
# (coordinator/result/spill.h), not in its heap.
# Asserts:
#  - while a 5-agent run goes, the coordinator holds an open, already
#    deleted $TMPDIR/nfstorm-spill.* file that grows with the sealed
#    intervals (at least 6 bytes an agent-interval), and no such name is
#    ever left in $TMPDIR;
#  - with a $TMPDIR that does not exist the run keeps them in its heap
#    (no spill file) and succeeds;
#  - both runs' JSON and journal re-render byte for byte (read back from
#    the file, or from the heap).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
N=5
mkdir -p "$T/tmp" "$T/allow"
run() {   # run NAME TMPDIR: N dial-in agents and their run (TMPDIR its only), sets CPID
  CPORT=$(free_port)
  TMPDIR=$2 "$NFSTORM" run --listen 127.0.0.1:$CPORT --secret-file "$SECRET" --expect $N --expect-timeout 60s \
    --interval 50ms --json "$T/$1.json" --name=s --ioengine=null --rw=randread --bs=4k --size=1m \
    --rate_iops=200 --runtime=3 --time_based >"$T/$1.out" 2>"$T/$1.err" &
  CPID=$!
  PIDS+=("$CPID")
  for i in $(seq $N); do dial_agent "$1$i" "$T/allow"; done
}
# the coordinator's spill file: "SIZE PATH" of its fd, or nothing
spill_fd() {
  local f l
  for f in /proc/"$1"/fd/*; do
    l=$(readlink "$f" 2>/dev/null) || continue
    case $l in "$T/tmp/"*" (deleted)") echo "$(stat -L -c %s "$f" 2>/dev/null || echo 0) $l"; return ;; esac
  done
}

run spill "$T/tmp"
first=0 last=0 path=
for _ in $(seq 400); do
  kill -0 "$CPID" 2>/dev/null || break
  read -r size p < <(spill_fd "$CPID")
  if [ -n "${p:-}" ]; then
    path=$p
    [ "$first" -eq 0 ] && first=$size
    last=$size
  fi
  ls "$T/tmp" | grep -q '^nfstorm-spill' && fail "a spill file has a name in \$TMPDIR: $(ls "$T/tmp")"
  sleep 0.05
done
wait "$CPID" || fail "the run exits $?: $(tail -n 3 "$T/spill.err")"
[ -n "$path" ] || fail "the coordinator never held a spill file"
case $path in "$T/tmp/"*" (deleted)") ;; *) fail "spill file not a deleted file in \$TMPDIR: $path" ;; esac
[ "$last" -gt "$first" ] || fail "the spill file did not grow during the run ($first -> $last bytes)"
ls "$T/tmp" | grep -q '^nfstorm-spill' && fail "a spill file is left in \$TMPDIR"
ai=$(grep -c '"type":"interval"' "$T/spill.json.journal")
[ "$last" -ge $((ai * 6 / 2)) ] || fail "spill file $last bytes for $ai agent-intervals (want >= 6 each, half sealed)"
echo "spill file $path: $first -> $last bytes while the run went ($ai agent-intervals in all)"

run heap "$T/missing"
for _ in $(seq 400); do
  kill -0 "$CPID" 2>/dev/null || break
  [ -n "$(spill_fd "$CPID")" ] && fail "a spill file without a \$TMPDIR to put it in: $(spill_fd "$CPID")"
  sleep 0.05
done
wait "$CPID" || fail "the run with no \$TMPDIR exits $?: $(tail -n 3 "$T/heap.err")"

for name in spill heap; do
  py "$T/$name.json" $N <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); ph = r["phases"][0]; n = int(sys.argv[2])
assert len(ph["agents"]) == n and len(ph["intervals"]) >= 40, (len(ph["agents"]), len(ph["intervals"]))
tot = sum(sum(iv["agents"]["ops"]["read"]["ops"]) for iv in ph["intervals"] if "read" in iv["ops"])
lat = sum(iv["ops"]["read"]["lat_ns"]["hist"] and 1 or 0 for iv in ph["intervals"] if "read" in iv["ops"])
assert tot == ph["ops"]["read"]["ops"] > 0, (tot, ph["ops"]["read"]["ops"])
assert lat > 0, "no interval kept its latency histogram"
PY
  for src in $name.json $name.json.journal; do
    TMPDIR=$T/tmp timeout 60 "$NFSTORM" report "$T/$src" --json "$T/x.json" >"$T/x.out" 2>"$T/x.err" ||
      fail "report $src exits $?: $(head -c 300 "$T/x.err")"
    cmp -s "$T/$name.json" "$T/x.json" || fail "the JSON re-rendered from $src differs"
  done
done
echo "ok: sealed intervals in an unlinked spill file (heap without one), re-rendered identically"
