#!/usr/bin/env bash
# t1302: a result whose record, agent machine or storage is malformed is
# refused by `nfstorm report` with exit 2 and one line naming the key; a
# result without any record (written before records) still reads; --target
# too long is a usage error.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
timeout 60 "$NFSTORM" run --local 1 --quiet --target t --json "$T/r.json" --name=b --rw=write --bs=64k \
  --size=1m --filename="$D/f" >"$T/out" 2>&1 || fail "run: $(tail -n 2 "$T/out")"
bad() {   # bad NAME EXPECTED-LINE PYTHON-EDIT
  py "$T/r.json" "$T/$1.json" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
PY
  timeout 20 "$NFSTORM" report "$T/$1.json" >"$T/o" 2>&1; rc=$?
  [ $rc -eq 2 ] || fail "$1: exit $rc, want 2: $(head -c 200 "$T/o")"
  [ "$(cat "$T/o")" = "nfstorm: $T/$1.json: $2" ] || fail "$1: said '$(cat "$T/o")', want '$2'"
}
bad argv "record.argv: element 0: want a string of at most 4096 bytes" 'r["record"]["argv"] = [1]'
bad target "record.target: missing" 'del r["record"]["target"]'
bad end "record.end_unix: before start_unix" 'r["record"]["end_unix"] = r["record"]["start_unix"] - 5'
bad kind "phases[0].agents[0].storage[0].kind: want mount or nfs" 'r["phases"][0]["agents"][0]["storage"][0]["kind"] = "disk"'
bad many "phases[0].agents[0].storage: want an array of at most 16 places" \
  'a = r["phases"][0]["agents"][0]; a["storage"] = a["storage"] * 17'
bad mem "agents[0].system.mem_bytes: want an integer in 0..9223372036854775807" 'r["agents"][0]["system"]["mem_bytes"] = -1'
bad long "phases[0].agents[0].storage[0].fstype: want a string of at most 31 bytes" \
  'r["phases"][0]["agents"][0]["storage"][0]["fstype"] = "x" * 32'
# no record at all: reads, and the header has no record lines
py "$T/r.json" "$T/old.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
del r["record"]; del r["agents"][0]["system"]; del r["phases"][0]["agents"][0]["storage"]
json.dump(r, open(sys.argv[2], "w"))
PY
timeout 20 "$NFSTORM" report "$T/old.json" >"$T/o" 2>&1 || fail "a result without a record: $(tail -n1 "$T/o")"
[ -z "$(sed -n 2p "$T/o")" ] || fail "a result without a record prints a header: $(sed -n 2p "$T/o")"
expect_fail "long --target" "^nfstorm: --target: longer than 255 bytes$" \
  "$NFSTORM" run --local 1 --target "$(printf 'x%.0s' $(seq 256))" --name=b --rw=write --size=1m --filename="$D/g"
echo "t1302: PASS"
