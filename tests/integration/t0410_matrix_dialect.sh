#!/usr/bin/env bash
# matrix= expands a job into one phase per combination, named and ordered
# as written; include and ${VAR} work from a real file; an unknown key gets
# a suggestion; ignored fio keys warn; --dry-run --local shows all phases.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/common.fio" <<F
size=\${NFSTORM_T_SIZE}
runtime=1
ioengine=null
cpus_allowed=0-3
F
cat >"$T/m.fio" <<F
[global]
include common.fio
directory=$D
[seed]
matrix=rw:read,write,randread,randwrite bs:4k,32m
F
NFSTORM_T_SIZE=64m timeout 20 "$NFSTORM" run --dry-run --local 2 "$T/m.fio" >"$T/out" 2>"$T/err" \
  || fail "dry-run failed: $(cat "$T/err")"
grep -q "nfstorm: warning: $T/common.fio:4: 'cpus_allowed' is not implemented by nfstorm (placement and priority of the load generator's own threads); ignored" "$T/err" \
  || fail "no warning for cpus_allowed: $(cat "$T/err")"
got=$(sed -n "s/^phase [0-9]*\/8 '\(.*\)'$/\1/p" "$T/out" | tr '\n' ' ')
want="seed-read-4k seed-read-32m seed-write-4k seed-write-32m seed-randread-4k seed-randread-32m seed-randwrite-4k seed-randwrite-32m "
[ "$got" = "$want" ] || fail "phases: got '$got' want '$want'"
grep -q "ops/thread=2 " "$T/out" || fail "32m op count (64m/32m) missing"
[ -z "$(ls -A "$D")" ] || fail "dry-run did I/O"

# the real run, on the null engine: 8 phases with the matrix values
NFSTORM_T_SIZE=32m timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/m.json" "$T/m.fio" >"$T/out" 2>&1 \
  || fail "matrix run failed: $(tail -n3 "$T/out")"
py "$T/m.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
names = [p["name"] for p in ph]
assert len(ph) == 8, names
assert names[0] == "seed-read-4k" and names[7] == "seed-randwrite-32m", names
PY

# an unset variable expands to nothing, as in fio, so size= is empty: the
# error says which variable; unknown keys suggest
timeout 10 "$NFSTORM" run --dry-run "$T/m.fio" >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unset variable: exit $rc"
grep -q "common.fio:1: bad value for 'size': '' (environment variable 'NFSTORM_T_SIZE' is not set)" "$T/out" || fail "$(cat "$T/out")"
printf '[j]\nsize=1m\nblocksizz=4k\n' >"$T/typo.fio"
expect_fail "typo" "typo.fio:3: unknown key 'blocksizz' \(did you mean 'blocksize'\?\)" \
  "$NFSTORM" run --dry-run "$T/typo.fio"
echo "matrix, include, \${VAR}, warnings and suggestions hold"
