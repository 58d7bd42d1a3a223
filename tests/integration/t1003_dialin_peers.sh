#!/usr/bin/env bash
# What a listening coordinator counts, at the protocol level: a welcome
# without the optional labels key (an older agent) that proves the secret
# counts; a valid proof at another protocol version is refused naming both
# versions; malformed labels and an --insecure welcome are refused with the
# reason, and none of them counts; one that joins and hangs up before the
# run no longer counts ("agent left").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
JOB="--name=w --rw=write --bs=4k --size=64k --filename=$T/f"
for mode in legacy version labels insecure; do
  # (dial_peer.py retries until the coordinator listens: no head start needed)
  python3 "$ROOT/tests/integration/py/dial_peer.py" $CPORT "$SECRET" $mode >"$T/$mode.out" 2>&1 &
  PIDS+=($!)
done
crun "$T/o" $JOB --expect 2 --expect-timeout 2s; rc=$?
[ $rc = 2 ] || fail "exit $rc, want 2: $(cat "$T/o")"
grep -Eq "^nfstorm: expected 2 agents, 1 joined within 2s: old \(127\.0\.0\.1:[0-9]+\)$" "$T/o" ||
  fail "the older agent's welcome did not count alone: $(cat "$T/o")"
grep -Eq "agent joined: old \(127\.0\.0\.1:[0-9]+\) labels=-  \[1/2\]" "$T/o" || fail "no joined line for it: $(cat "$T/o")"
wait_grep "$T/legacy.out" "auth received" 5
grep -q "auth received" "$T/legacy.out" || fail "legacy: no auth: $(cat "$T/legacy.out")"
# each refused peer prints its refusal and exits: wait for them (loaded machine)
for m in version labels insecure; do wait_grep "$T/$m.out" . 10; done
pv=$("$NFSTORM" --version | sed -n 's/.*(protocol \([0-9]*\)).*/\1/p')
grep -qx "protocol version mismatch: coordinator speaks $pv, agent 99" "$T/version.out" ||
  fail "version: $(cat "$T/version.out")"
grep -q "^bad labels: labels 'a b': a label may hold only letters" "$T/labels.out" || fail "labels: $(cat "$T/labels.out")"
grep -q "does not authenticate (--insecure)" "$T/insecure.out" || fail "insecure: $(cat "$T/insecure.out")"
for m in version labels insecure; do grep -q "auth received" "$T/$m.out" && fail "$m: was sent our proof"; done
# one that joins and hangs up before the run no longer counts
python3 "$ROOT/tests/integration/py/dial_peer.py" $CPORT "$SECRET" leave >"$T/leave.out" 2>&1 &
PIDS+=($!)
crun "$T/o2" $JOB --expect 2 --expect-timeout 2s; rc=$?
[ $rc = 2 ] || fail "leave: exit $rc, want 2: $(cat "$T/o2")"
grep -Eq "^nfstorm: agent joined: old \(127\.0\.0\.1:[0-9]+\) labels=-  \[1/2\]$" "$T/o2" || fail "leave: did not join first: $(cat "$T/o2")"
grep -Eq "^nfstorm: agent left: old \(127\.0\.0\.1:[0-9]+\): connection closed  \[0/2\]$" "$T/o2" || fail "leave: no 'agent left' line: $(cat "$T/o2")"
grep -qx "nfstorm: expected 2 agents, 0 joined within 2s" "$T/o2" || fail "leave: it still counted: $(cat "$T/o2")"
echo "ok: an older agent's welcome counts, one that hangs up before the run does not; version 99, bad labels and --insecure refused with the reason"
