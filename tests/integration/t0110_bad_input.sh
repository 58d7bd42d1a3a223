#!/usr/bin/env bash
# Bad input: a one-line error naming what was wrong, a non-zero exit, no hang,
# and an agent that refuses a plan keeps serving.
source "$(dirname "$0")/lib.sh"
D=$T/d; O=$T/outside; mkdir -p "$D" "$O"
printf '[global]\nrw=randread\nblocksizz=4k\n[j]\nsize=1m\n' >"$T/typo.fio"
expect_fail "unknown key" "typo\.fio:3: unknown key 'blocksizz'" "$NFSTORM" run --local 1 "$T/typo.fio"
printf '[j]\nrw=read\nbs=4q\nsize=1m\n' >"$T/bad.fio"
expect_fail "bad size in file" "bad\.fio:3: bad value for 'bs': '4q'" "$NFSTORM" run --local 1 "$T/bad.fio"
expect_fail "bad size" "bs.*'4q'" "$NFSTORM" run --local 1 --name=x --rw=read --bs=4q --size=1m --directory="$D"
expect_fail "bad rw" "rw.*'sideways'" "$NFSTORM" run --local 1 --name=x --rw=sideways --size=1m
expect_fail "missing plan" "nosuch\.fio" "$NFSTORM" run --local 1 "$T/nosuch.fio"
expect_fail "unknown option" "unknown option '--frobnicate" "$NFSTORM" run --local 1 --name=x --size=1m --frobnicate=2
expect_fail "unreachable agent" "agent 0 \(127\.0\.0\.1:1\).*refused" "$NFSTORM" run --agents 127.0.0.1:1 --name=x --rw=read --bs=4k --size=1m
start_agent "$D"
expect_fail "outside --allow" "outside the allowed directories" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --name=x --rw=write --bs=4k --size=1m --directory="$O"
ln -s "$O" "$D/link"
expect_fail "symlink escape" "outside the allowed directories" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --name=x --rw=write --bs=4k --size=1m --filename="$D/link/f"
expect_fail "dot-dot escape" "outside the allowed directories" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --name=x --rw=write --bs=4k --size=1m --filename="$D/../outside/g"
[ -z "$(ls -A "$O")" ] || fail "files written outside --allow: $(ls "$O")"
kill -0 "$AGENT_PID" || fail "agent died after refusing plans"
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/ok.json" --name=x --rw=write --bs=4k \
  --size=1m >"$T/out" 2>&1 || fail "agent does not serve after refusals: $(tail -n2 "$T/out")"
py "$T/ok.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]
assert o["ops"] == 256 and o["bytes"] == 1 << 20, o
PY
[ "$(stat -c %s "$D/x.0.0.0")" -eq $((1 << 20)) ] || fail "default directory: x.0.0.0 not 1 MiB"
echo "bad inputs refused"
