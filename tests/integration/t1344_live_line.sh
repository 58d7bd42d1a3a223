#!/usr/bin/env bash
# t1344: the live status line never shows "0ns" and prints nothing for the
# short interval agents send after a time-bound phase's runtime.
# Through a pipe: a 2 s phase at 1 s intervals prints exactly 2 status
# lines (its JSON usually has a third, tail interval); a rate-limited phase (1 op/s
# at 250 ms intervals) prints "p99 -" exactly for the drawn intervals that
# had no op.  Through a pseudo-terminal (script(1)): the line kept on
# screen after the phase is its last full interval with the phase's
# duration and 100%, and no line shows "0ns".
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
A=(--name=r --rw=randread --bs=4k --size=1m --directory="$D" --time_based)
timeout 60 "$NFSTORM" run --local 2 "${A[@]}" --runtime=2 --json "$T/a.json" 2>"$T/a.err" >/dev/null | cat \
  || fail "pipe run"
timeout 60 "$NFSTORM" run --local 1 "${A[@]}" --runtime=2 --interval 250ms --rate_iops=1 --json "$T/b.json" \
  2>"$T/b.err" >/dev/null | cat || fail "rate-limited pipe run"
py "$T/a.json" "$T/a.err" "$T/b.json" "$T/b.err" <<'PY'
import json, sys
for jpath, epath in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    ph = json.load(open(jpath))["phases"][0]
    err = open(epath).read()
    assert "\r" not in err, "carriage return in piped output"
    assert "0ns" not in err, "%s: 0ns in the live line:\n%s" % (epath, err)
    lines = [l for l in err.splitlines() if l.startswith("[1/1 r] ")]
    secs = ph["interval_ms"] / 1000
    drawn = [it for k, it in enumerate(ph["intervals"]) if k == 0 or k * secs < 2 - 1e-9]
    assert len(lines) == len(drawn), "%s: %d status lines for %d intervals within the runtime (%d in all):\n%s" % (
        epath, len(lines), len(drawn), len(ph["intervals"]), err)
    empty = [k for k, it in enumerate(drawn) if sum(o["ops"] for o in it["ops"].values()) == 0]
    dash = [k for k, l in enumerate(lines) if " p99 - |" in l]
    assert dash == empty, "%s: 'p99 -' on lines %s, empty intervals %s:\n%s" % (epath, dash, empty, err)
a = json.load(open(sys.argv[1]))["phases"][0]
# (agents usually send a tail interval after the runtime; when they do, it
# is in the JSON and not on stderr)
print("full-speed run: %d intervals in the JSON, 2 status lines" % len(a["intervals"]))
b = json.load(open(sys.argv[3]))["phases"][0]
nb = sum(1 for it in b["intervals"] if sum(o["ops"] for o in it["ops"].values()) == 0)
assert nb >= 3, "the rate-limited run has only %d intervals without ops" % nb
print("status lines match the intervals; %d intervals without ops show p99 -" % nb)
PY
command -v script >/dev/null || skip "no script(1) for the pseudo-terminal part"
timeout 60 script -qfec "$NFSTORM run --local 1 --name=r --rw=randread --bs=4k --size=1m --directory=$D --runtime=2 --time_based --json $T/c.json >/dev/null" "$T/tty" >/dev/null 2>&1 \
  || fail "tty run"
py "$T/tty" "$T/c.json" <<'PY'
import json, re, sys
raw = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
assert "0ns" not in raw, "0ns in the tty status line"
assert raw.count("\r[1/1 r] ") >= 2, "the status line was not redrawn in place"
# what stays on screen: per line, the text after its last carriage return
shown = [re.sub(r"\x1b\[K", "", l.rstrip("\r").split("\r")[-1]) for l in raw.split("\n")]
status = [l for l in shown if l.startswith("[1/1 r] ")]
assert len(status) == 1, "kept status lines: %s" % status
dur = json.load(open(sys.argv[2]))["phases"][0]["duration_ns"] / 1e9
assert 2 <= dur < 2.1, dur
assert re.match(r"\[1/1 r\] 2(\.\d+)?s \| ", status[0]), "not the phase's duration: %s" % status[0]
assert status[0].endswith("100%"), status[0]
assert " left " not in status[0], status[0]
print("kept: %s" % status[0])
PY
echo "live line ok"
