#!/usr/bin/env bash
# Issue 25 item 3, efs-proxy seen through: a mount or URL that points at a
# local proxy on 127.0.0.1:PORT (efs-utils' efs-proxy or stunnel) has the
# proxy found and sampled, and the NIC rule applied to the proxy's remote
# route.  A real relay (py/tcp_relay.py, named "nfsrelay") listens on
# 127.0.0.1 and relays to nfs-ganesha bound on 127.0.0.2 (loopback only).
#  1. a libnfs run through the relay (nfs://127.0.0.1/...?nfsport=RELAY):
#     JSON per phase and per interval: the relay's pid and name, its one
#     connection to 127.0.0.2:GANESHA_PORT, CPU > 0 and the intervals
#     summing to the phase; host.nic found by the route to 127.0.0.2 (the
#     proxy's remote, not the URL's 127.0.0.1) whose speed the test gives as
#     10 Mbit/s, so the faster-than-the-link rule judges that link; the text
#     and HTML say so, and that round trips stop at the local proxy; the
#     journal and the JSON re-render to the same;
#  2. a kernel mount named by a mountstats fixture as efs-utils makes it
#     (127.0.0.1:/ ... port=RELAY) while a client holds a connection through
#     the relay: found the same way.
# Unit tests cover the parsers on fixtures (tests/unit/test_proxyproc.c).
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT

mkdir -p "$T/export" "$T/sys/lo"
echo 10 >"$T/sys/lo/speed"
NFS_BIND_ADDR=127.0.0.2 nfs_server_start "$T/export" || fail "NFS server did not start on 127.0.0.2"

python3 "$ROOT/tests/integration/py/tcp_relay.py" 127.0.0.1 127.0.0.2 "$NFS_PORT" nfsrelay >"$T/relay.out" 2>&1 &
RELAY=$!; PIDS+=("$RELAY")
wait_grep "$T/relay.out" '^port [0-9]+$' 10 || fail "relay did not start: $(cat "$T/relay.out")"
RPORT=$(sed -n 's/^port //p' "$T/relay.out")
URL="nfs://127.0.0.1/nfstorm?version=4&nfsport=$RPORT"

NFSTORM_TEST_SYSFS_NET=$T/sys timeout 60 "$NFSTORM" run --local 1 --name=px --ioengine=nfs "--nfs_url=$URL" \
  --rw=read --bs=64k --size=8m --runtime=2 --time_based --json "$T/r.json" --html "$T/r.html" --timeseries "$T/r.ts" \
  >"$T/out" 2>&1 || fail "run through the relay: $(tail -n3 "$T/out")"

py "$T/r.json" "$RELAY" "$RPORT" "$NFS_PORT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); pid, rport, gport = (int(x) for x in sys.argv[2:5])
a = d["phases"][0]["agents"][0]
p = a["proxy"]
assert p["pid"] == pid and p["name"] == "nfsrelay" and p["port"] == rport, p
assert p["connections"] == 1 and p["remotes"] == ["127.0.0.2:%d" % gport], p
assert p["cpu_user_us"] + p["cpu_sys_us"] > 0, p
rd = a["ops"]["read"]["bytes"]
print("proxy rx", p["rx_bytes"], "tx", p["tx_bytes"], "phase read bytes", rd, file=sys.stderr)
assert 0.9 * rd <= p["rx_bytes"] <= 1.1 * rd + 2**20 and p["tx_bytes"] > 0, (p, rd)   # the reads crossed it
assert p["route_host"] == "127.0.0.2", p
nic = a["host"]["nic"]
assert nic["name"] == "lo" and nic["route"] is True and nic["speed_mbps"] == 10, nic
f = a["faster_than_link"]
assert f and f["limit"] == "nic" and f["speed_mbps"] == 10, f
ivs = d["phases"][0]["intervals"]
cols = [iv["client"]["proxy"][0] for iv in ivs if "proxy" in iv.get("client", {})]
assert len(cols) >= 1 and len(cols) == len(ivs), (len(cols), len(ivs))
assert all(c["pid"] == pid and c["connections"] == 1 and c["remotes"] == p["remotes"] for c in cols), cols
cpu = sum(c["cpu_user_us"] + c["cpu_sys_us"] for c in cols)
assert cpu == p["cpu_user_us"] + p["cpu_sys_us"] and any(c["cpu_user_us"] + c["cpu_sys_us"] > 0 for c in cols), cols
assert sum(c["rx_bytes"] for c in cols) == p["rx_bytes"], cols
PY
py "$T/r.ts" "$RELAY" <<'PY'
import json, sys
per = [json.loads(l) for l in open(sys.argv[1])]
per = [l for l in per if l.get("agent") == 0]
assert per and all(l["client"]["proxy"]["pid"] == int(sys.argv[2]) for l in per), per[:1]
PY
line="^proxy: agent 0: nfsrelay \(pid $RELAY\) on port $RPORT: CPU [0-9.]+ s user [0-9.]+ s sys \([0-9.]+% of a core\), 1 connection to 127\.0\.0\.2:$NFS_PORT, received [0-9.]+[KMG]iB sent [0-9.]+([KMG]i)?B, NIC lo on the route to 127\.0\.0\.2$"
grep -Eq "$line" "$T/out" || fail "no proxy line in the text: $(grep -i proxy "$T/out")"
grep -qx "note: round trips (mountstats rtt, the nfs engine's rtt) stop at the local proxy (nfsrelay on port $RPORT), not at the file system" \
  "$T/out" || fail "no round-trip note: $(grep note "$T/out")"
grep -Eq "^warning: agent 0 \(.*\) read [0-9.]+[KMG]iB/s, faster than the link \(NIC 10 Mbit/s\)" "$T/out" \
  || fail "the NIC rule did not judge the proxy's route: $(grep -i 'warning\|faster' "$T/out")"
grep -q "nfsrelay (pid $RELAY) on port $RPORT" "$T/r.html" || fail "no proxy row in the HTML"
grep -q "stop at the local proxy" "$T/r.html" || fail "no round-trip note in the HTML"
for src in r.json r.json.journal; do
  timeout 30 "$NFSTORM" report "$T/$src" --json "$T/re.json" >"$T/re" 2>&1 || fail "report $src: $(tail -n2 "$T/re")"
  diff <(grep '^proxy:\|stop at the local proxy' "$T/out") <(grep '^proxy:\|stop at the local proxy' "$T/re") >/dev/null \
    || fail "proxy lines re-rendered from $src differ: $(grep '^proxy:' "$T/re")"
  cmp -s "$T/r.json" "$T/re.json" || fail "JSON re-rendered from $src differs"
done

# 2. a kernel mount as efs-utils makes it, named by a mountstats fixture
D=$T/d; mkdir -p "$D"
M=$(stat -c %m "$D")
{ echo "device 127.0.0.1:/ mounted on $M with fstype nfs4 statvers=1.1"
  printf '\topts:\trw,vers=4.1,rsize=1048576,wsize=1048576,hard,noresvport,proto=tcp,port=%s,timeo=600,retrans=2,sec=sys,clientaddr=127.0.0.1,local_lock=none\n' "$RPORT"
  printf '\tage:\t100\n'
  printf '\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n'
  printf '\txprt:\ttcp 900 1 1 0 0 10 10 0 10 0 64 10 0\n'
  printf '\tper-op statistics\n'
  printf '\t        READ: 10 10 0 1000 41000 1 20 22 0\n'
} >"$T/ms"
# the kernel client's connection through the proxy, held open for the run
python3 -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); print("held", flush=True); time.sleep(120)' \
  "$RPORT" >"$T/hold.out" 2>&1 &
PIDS+=("$!")
wait_grep "$T/hold.out" '^held$' 10 || fail "no connection through the relay: $(cat "$T/hold.out")"
NFSTORM_TEST_MOUNTSTATS=$T/ms timeout 60 "$NFSTORM" run --local 1 --name=km --rw=read --bs=4k --size=256k \
  "--filename=$D/f" --runtime=1 --time_based --json "$T/k.json" >"$T/kout" 2>&1 || fail "kernel-mount run: $(tail -n3 "$T/kout")"
py "$T/k.json" "$RELAY" "$RPORT" "$NFS_PORT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); pid, rport, gport = (int(x) for x in sys.argv[2:5])
a = d["phases"][0]["agents"][0]
p = a["proxy"]
assert p["pid"] == pid and p["port"] == rport and p["connections"] >= 1, p
assert "127.0.0.2:%d" % gport in p["remotes"] and p["route_host"] == "127.0.0.2", p
assert a["mountstats"]["mount"], a["mountstats"]
PY
grep -q "^note: round trips (mountstats rtt" "$T/kout" || fail "kernel mount: no round-trip note: $(grep note "$T/kout")"
echo "efs-proxy: relay pid $RELAY found on port $RPORT, 1 connection to 127.0.0.2:$NFS_PORT, CPU sampled, NIC rule on the proxy's route; kernel-mount form found by mountstats"
