#!/usr/bin/env bash
# t1345: the run HTML with the new charts renders in headless Chromium at
# 1400 px: a 2 s random-read phase, a one-interval write phase and a
# metadata phase on 2 agents.  The screenshot is not blank, and the
# palette's first four colours (p50, p90, p99, p99.9 on the log-scale
# latency chart; the fleet and agent lines) are each drawn on many pixels.
source "$(dirname "$0")/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser) || skip "chromium not installed (scripts/install-deps.sh)"
D=$T/d; mkdir -p "$D"
cat >"$T/p.fio" <<EOF2
[global]
directory=$D
size=4m
[rr]
rw=randread
bs=4k
runtime=2
time_based
[one]
stonewall
rw=randwrite
bs=4k
runtime=1
time_based
[md]
stonewall
rw=metadata
md_ops=create,stat,unlink
nrfiles=50
filesize=1k
EOF2
timeout 90 "$NFSTORM" run "$T/p.fio" --local 2 --quiet --html "$T/a.html" >"$T/out" 2>&1 || fail "run: $(tail -n3 "$T/out")"
grep -q 'data-view="bandwidth"' "$T/a.html" || fail "no bandwidth chart"
grep -Eq '<script|https?://[^"]*\.(js|css)|<link ' "$T/a.html" && fail "the page is not self-contained"
mkdir -p "$T/profile"
timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
  --user-data-dir="$T/profile" --window-size=1400,2600 --screenshot="$T/shot.png" "file://$T/a.html" \
  >"$T/chrome.log" 2>&1
[ -s "$T/shot.png" ] || fail "no screenshot: $(tail -n3 "$T/chrome.log")"
py "$T/shot.png" "$ROOT/tests/integration/py" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import png_pixels
w, h, rows = png_pixels.load(sys.argv[1])
assert w == 1400, w
palette = {"blue": (0x1f, 0x77, 0xb4), "red": (0xd6, 0x27, 0x28), "green": (0x2c, 0xa0, 0x2c),
           "orange": (0xff, 0x7f, 0x0e)}
near = {k: 0 for k in palette}
white = total = 0
for row in rows[::2]:
    for (r, g, b) in row[::2]:
        total += 1
        if r > 245 and g > 245 and b > 245:
            white += 1
        for k, (pr, pg, pb) in palette.items():
            if abs(r - pr) + abs(g - pg) + abs(b - pb) < 40:
                near[k] += 1
assert white < total * 0.97, "screenshot is (nearly) blank"
for k, n in near.items():
    assert n > 50, "too few %s pixels: %d (%s)" % (k, n, near)
print("%dx%d, palette pixels %s" % (w, h, near))
PY
echo "charts render"
