#!/usr/bin/env bash
# Issue 21 item 11: a figure beyond what the hardware can do is flagged.
#  1. a local page-cache read with --client-cap 10MiB/s: text, JSON, HTML and
#     a re-render say `faster than the link (client cap 10MiB/s): page cache
#     or a client-side cache?`; the cap is recorded per agent; without the
#     cap nothing is flagged (the data crossed no NIC: lo has no speed);
#  2. the NIC part: a libnfs read from ganesha on 127.0.0.1, the route to the
#     URL's host being lo, whose speed the test gives as 10 Mbit/s
#     (NFSTORM_TEST_SYSFS_NET: a veth's speed is a fixed 10000 and there is
#     no ethtool here): `faster than the link (NIC 10 Mbit/s)`;
#  3. a bad --client-cap is one line, exit 2.
# (A libnfs read through an 80 Mbit/s tbf link that is not flagged: t0645.)
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
common=(--rw=read --bs=64k --size=8m --runtime=2 --time_based)

timeout 60 "$NFSTORM" run --local 1 --client-cap 10MiB/s --name=pc "${common[@]}" "--directory=$D" \
  --json "$T/pc.json" --html "$T/pc.html" >"$T/pc.out" 2>&1 || fail "page-cache run: $(tail -n3 "$T/pc.out")"
want='faster than the link (client cap 10MiB/s): page cache or a client-side cache?'
grep -Eq "^warning: agent 0 \(.*\) read [0-9.]+[KMG]iB/s, faster than the link \(client cap 10MiB/s\): page cache or a client-side cache\?$" \
  "$T/pc.out" || fail "no flag in the text: $(grep -i 'warning\|faster' "$T/pc.out")"
grep -qF "$want" "$T/pc.html" || fail "no flag in the HTML"
"$NFSTORM" report "$T/pc.json" >"$T/re.out" 2>&1 || fail "report: $(tail -n2 "$T/re.out")"
grep -qF "$want" "$T/re.out" || fail "the re-render lost the flag: $(grep -i faster "$T/re.out")"
py "$T/pc.json" "$want" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); want = sys.argv[2]
assert d["agents"][0]["client_cap_bytes_per_s"] == 10 * 2**20, d["agents"][0]
a = d["phases"][0]["agents"][0]
f = a["faster_than_link"]
assert f and f["limit"] == "client_cap" and f["text"] == want, f
assert f["limit_bytes_per_s"] == 10 * 2**20, f
rd = a["ops"]["read"]["bytes"] / a["duration_s"]
assert abs(f["read_bytes_per_s"] - rd) <= rd * 1e-6 and rd > 10 * 2**20, (f, rd)
PY
timeout 60 "$NFSTORM" run --local 1 --name=pc2 "${common[@]}" "--directory=$D" --json "$T/pc2.json" \
  >"$T/pc2.out" 2>&1 || fail "uncapped run: $(tail -n3 "$T/pc2.out")"
grep -q "faster than the link" "$T/pc2.out" && fail "flagged without a cap or a NIC on the path"
py "$T/pc2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); a = d["phases"][0]["agents"][0]
assert a["faster_than_link"] is False, a["faster_than_link"]
assert "client_cap_bytes_per_s" not in d["agents"][0]
PY

# 2. the NIC on the route to the NFS server
if command -v ganesha.nfsd >/dev/null 2>&1; then
  source "$ROOT/tests/nfs_server.sh"
  trap 'nfs_server_stop; cleanup' EXIT
  mkdir -p "$T/export" "$T/sys/lo"
  echo 10 >"$T/sys/lo/speed"
  nfs_server_start "$T/export" || fail "NFS server did not start"
  NFSTORM_TEST_SYSFS_NET=$T/sys timeout 60 "$NFSTORM" run --local 1 --name=nf "${common[@]}" --ioengine=nfs \
    "--nfs_url=$NFS_URL3" --json "$T/nf.json" >"$T/nf.out" 2>&1 || fail "nfs run: $(tail -n3 "$T/nf.out")"
  grep -Eq "^warning: agent 0 \(.*\) read [0-9.]+[KMG]iB/s, faster than the link \(NIC 10 Mbit/s\): page cache or a client-side cache\?$" \
    "$T/nf.out" || fail "no NIC flag: $(grep -i 'warning\|faster' "$T/nf.out")"
  py "$T/nf.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); a = d["phases"][0]["agents"][0]
nic = a["host"]["nic"]
assert nic["name"] == "lo" and nic["speed_mbps"] == 10 and nic["route"] is True, nic
f = a["faster_than_link"]
assert f and f["limit"] == "nic" and f["speed_mbps"] == 10 and f["limit_bytes_per_s"] == 1.25e6, f
PY
else
  echo "(ganesha.nfsd not installed: the NIC part is not checked)"
fi

expect_fail "bad cap" "^nfstorm: --client-cap big=lots: want RATE or LABEL=RATE" "$NFSTORM" run --local 1 \
  --client-cap big=lots --name=x --rw=read --bs=4k --size=64k
echo "reads beyond the client's cap or its NIC link are flagged; within them they are not"
