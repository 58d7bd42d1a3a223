#!/usr/bin/env bash
# The compare HTML renders in headless Chromium at 1400 px wide: the page
# is as wide as the window (nothing pushed off to the right), not blank, and
# each input's bar colour is drawn.  SHOT=PATH keeps a copy of the
# screenshot to look at.
source "$(dirname "$0")/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser) || skip "chromium not installed (scripts/install-deps.sh)"
D=$T/d; mkdir -p "$D"
run() { timeout 60 "$NFSTORM" run --local 1 --quiet --label "$1" --json "$T/$1.json" --directory="$D" "${@:2}" \
  >"$T/$1.out" 2>&1 || fail "run $1: $(tail -n3 "$T/$1.out")"; }
run efs-general-purpose-bursting --name=randread-4k --rw=randread --bs=4k --size=4m --runtime=300ms --time_based \
  --name=seq-read-32m --rw=read --bs=32m --size=64m --runtime=300ms --time_based --stonewall
run efs-max-io-provisioned --name=randread-4k --rw=randread --bs=4k --size=4m --runtime=300ms --time_based \
  --name=seq-read-32m --rw=read --bs=32m --size=64m --runtime=300ms --time_based --stonewall \
  --name=randwrite-4k-with-a-long-phase-name --rw=randwrite --bs=4k --size=4m --runtime=300ms --time_based --stonewall
timeout 20 "$NFSTORM" compare "$T/efs-general-purpose-bursting.json" "$T/efs-max-io-provisioned.json" \
  --format html >"$T/c.html" 2>"$T/c.err" || fail "compare: $(cat "$T/c.err")"
mkdir -p "$T/profile"
timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
  --user-data-dir="$T/profile" --window-size=1400,1400 --screenshot="$T/shot.png" "file://$T/c.html" \
  >"$T/chrome.log" 2>&1
[ -s "$T/shot.png" ] || fail "no screenshot: $(tail -n3 "$T/chrome.log")"
[ -n "${SHOT:-}" ] && cp "$T/shot.png" "$SHOT"
py "$T/shot.png" <<'PY'
import sys, zlib, struct
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(d):
    n, typ = struct.unpack(">I4s", d[pos:pos + 8]); body = d[pos + 8:pos + 8 + n]; pos += 12 + n
    if typ == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif typ == b"IDAT": idat += body
assert w == 1400, "screenshot is %d px wide" % w
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4; stride = w * bpp
raw = zlib.decompress(idat); rows = []; prev = bytearray(stride)
for y in range(h):
    f = raw[y * (stride + 1)]; line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
near = lambda px, c: all(abs(px[k] - c[k]) < 24 for k in range(3))
blue, red, white, total = 0, 0, 0, 0
for line in rows[::2]:
    for x in range(0, stride, bpp * 2):
        px = line[x:x + 3]; total += 1
        blue += near(px, (0x1f, 0x77, 0xb4)); red += near(px, (0xd6, 0x27, 0x28))
        white += min(px) > 245
assert white < total * 0.97, "screenshot is blank"
# the bars of both inputs (palette colours 0 and 1) are drawn, not only legend swatches
assert blue > 400 and red > 400, "bars: %d blue, %d red samples" % (blue, red)
print("%dx%d, %d blue, %d red bar samples" % (w, h, blue, red))
PY
echo "compare html renders"
