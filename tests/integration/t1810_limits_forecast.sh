#!/usr/bin/env bash
# Issue 25 item 2: the forecast before a run, from --limits and --fs-size
# (--dry-run: nothing connects, nothing runs).  Hand calculations, with the
# efs-bursting example (baseline 50 KiB/s per GiB, burst 100 MiB/s, 2.1 TiB
# of credits, reads metered at 1/3) and --fs-size 500GiB:
#   baseline = 50 KiB/s x 500 = 25000 KiB/s = 24.41 MiB/s
#  1. 2 agents writing with no rate limit for 10 min: an open load, cut to
#     the burst rate, 100 MiB/s metered (the clients' 2 x 500 MiB/s is more);
#     drain = 2.1 x 1048576 MiB / (100 - 24.41) MiB/s = 29132 s = 8.1 h:
#     the run is shorter: "this 10 min run measures the burst; credits last
#     about 8.1 h at this load";
#  2. the same for 12 h: "credits run out about 8.1 h into the run";
#  3. 1 agent reading at rate=5m: 5/3 = 1.67 MiB/s metered, under the
#     baseline: the credits never run out;
#  4. the elastic example (0.06 USD per GB written): 1 agent writing at
#     rate=10m for 100 s: 1000 MiB = 1.048576 GB, 0.06 USD;
#  5. bad input: one line naming file:line and key, exit 2.
source "$(dirname "$0")/lib.sh"
EX=$ROOT/examples/limits
dry() { timeout 30 "$NFSTORM" run --dry-run "$@" >"$T/dry.out" 2>&1 || fail "dry run $*: $(tail -n3 "$T/dry.out")"; }

dry --local 2 --limits "$EX/efs-bursting.ini" --fs-size 500GiB --name=w --rw=write --bs=1m --size=1g \
  --runtime=10m --time_based
grep -qF '  plan: 10 min, metered load 100MiB/s (reads x 0.333, writes x 1; open load taken at the declared caps)' \
  "$T/dry.out" || fail "1: plan line: $(grep -A6 '^limits' "$T/dry.out")"
grep -qF '  credits: 2.1TiB, baseline 24.4MiB/s, burst 100MiB/s: credits last about 8.1 h at this load' "$T/dry.out" \
  || fail "1: credits line: $(grep -A6 '^limits' "$T/dry.out")"
grep -qxF '  warning: this 10 min run measures the burst; credits last about 8.1 h at this load' "$T/dry.out" \
  || fail "1: no shorter-than-the-drain warning: $(grep -A6 '^limits' "$T/dry.out")"

dry --local 2 --limits "$EX/efs-bursting.ini" --fs-size 500GiB --name=w --rw=write --bs=1m --size=1g \
  --runtime=12h --time_based
grep -qF '  credits run out about 8.1 h into the run; then the metered rate falls to the baseline 24.4MiB/s' \
  "$T/dry.out" || fail "2: $(grep -A6 '^limits' "$T/dry.out")"
grep -q 'measures the burst' "$T/dry.out" && fail "2: a 12 h run warned as shorter than the drain"

dry --local 1 --limits "$EX/efs-bursting.ini" --fs-size 500GiB --name=r --rw=read --bs=1m --size=1g --rate=5m \
  --runtime=1h --time_based
grep -qF 'they never run out at this load (at or under the baseline)' "$T/dry.out" \
  || fail "3: $(grep -A6 '^limits' "$T/dry.out")"

dry --local 1 --limits "$EX/efs-elastic.ini" --name=w --rw=write --bs=1m --size=1g --rate=10m --runtime=100 \
  --time_based
grep -qF '  cost of the plan: 0.06 USD (read 0B: 0.00, written 1000MiB: 0.06, time: 0.00)' "$T/dry.out" \
  || fail "4: $(grep -A6 '^limits' "$T/dry.out")"
for f in "$EX"/*.ini; do
  dry --local 1 --limits "$f" --fs-size 1TiB --name=w --rw=write --bs=1m --size=1g --runtime=1m --time_based
  grep -q '^limits: EFS ' "$T/dry.out" || fail "$f: no forecast"
done

# 5. bad input
printf '[limits]\nname = x\nclient_thruput = 1m\n' >"$T/bad.ini"
expect_fail "unknown key" "^nfstorm: $T/bad.ini:3: client_thruput: unknown key in \[limits\]" \
  "$NFSTORM" run --dry-run --limits "$T/bad.ini" --name=w --rw=write --size=1m
[ "$(wc -l <"$T/out")" -eq 1 ] || fail "unknown key: more than one line: $(cat "$T/out")"
printf '[credits]\n\ninitial = lots\n' >"$T/bad2.ini"
expect_fail "bad value" "^nfstorm: $T/bad2.ini:3: initial: bad value 'lots' \(want a size" \
  "$NFSTORM" run --dry-run --limits "$T/bad2.ini" --name=w --rw=write --size=1m
expect_fail "--fs-size alone" "^nfstorm: --fs-size needs --limits FILE" \
  "$NFSTORM" run --dry-run --fs-size 1TiB --name=w --rw=write --size=1m
expect_fail "bad --fs-size" "^nfstorm: --fs-size: bad value 'big'" \
  "$NFSTORM" run --dry-run --limits "$EX/efs-bursting.ini" --fs-size big --name=w --rw=write --size=1m
expect_fail "missing file" "^nfstorm: --limits $T/none.ini: cannot open: No such file" \
  "$NFSTORM" run --dry-run --limits "$T/none.ini" --name=w --rw=write --size=1m
expect_fail "a FIFO" "not a regular file" \
  bash -c "mkfifo '$T/fifo' && exec '$NFSTORM' run --dry-run --limits '$T/fifo' --name=w --rw=write --size=1m"
echo PASS
