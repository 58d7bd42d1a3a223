#!/usr/bin/env bash
# The HTML report renders in headless Chromium at 1280 px: the screenshot
# is not blank, and its chart area has many coloured (non-grey) pixels.
source "$(dirname "$0")/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser) || skip "chromium not installed (scripts/install-deps.sh)"
D=$T/d; mkdir -p "$D"
timeout 60 "$NFSTORM" run --local 2 --quiet --html "$T/a.html" --name=r --rw=randread --bs=4k --size=4m \
  --directory="$D" --runtime=3 --time_based >"$T/out" 2>&1 || fail "run: $(tail -n3 "$T/out")"
mkdir -p "$T/profile"
timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
  --user-data-dir="$T/profile" --window-size=1280,2400 --screenshot="$T/shot.png" "file://$T/a.html" \
  >"$T/chrome.log" 2>&1
[ -s "$T/shot.png" ] || fail "no screenshot: $(tail -n3 "$T/chrome.log")"
py "$T/shot.png" <<'PY'
import sys, zlib, struct
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(d):
    n, typ = struct.unpack(">I4s", d[pos:pos + 8]); body = d[pos + 8:pos + 8 + n]; pos += 12 + n
    if typ == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif typ == b"IDAT": idat += body
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
colours, white = set(), 0
coloured = 0
for line in rows[::2]:
    for x in range(0, stride, bpp * 2):
        r, g, b = line[x], line[x + 1], line[x + 2]
        colours.add((r, g, b))
        if max(r, g, b) - min(r, g, b) > 60: coloured += 1
        if r > 245 and g > 245 and b > 245: white += 1
total = len(rows[::2]) * len(range(0, stride, bpp * 2))
assert white < total * 0.98, "screenshot is blank"
assert len(colours) > 20, "too few colours: %d" % len(colours)
assert coloured > 500, "charts have too few coloured pixels: %d" % coloured
print("%dx%d, %d colours, %d coloured samples" % (w, h, len(colours), coloured))
PY
echo "html renders"
