#!/usr/bin/env bash
# nfstorm-test: serial (dpkg: one package manager at a time)
# make deb builds a Debian package with dpkg-buildpackage; apt-get installs
# it; the installed /usr/bin/nfstorm runs a real 2-agent --local run with an
# exact result, the agent finds the libnfs the package carries, the example
# unit verifies against the installed agent; the package is removed at the
# end whatever happens (EXIT trap).
. "$(dirname "$0")/lib.sh"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  sudo -n true 2>/dev/null || skip "installing a package needs root or passwordless sudo"
  SUDO=sudo
fi
command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null \
  || skip "dpkg-dev or debhelper is missing (scripts/install-deps.sh)"
NFS=0
if command -v ganesha.nfsd >/dev/null 2>&1; then NFS=1; source "$ROOT/tests/nfs_server.sh"; fi
remove_pkg() {
  [ $NFS = 1 ] && nfs_server_stop
  dpkg -s nfstorm >/dev/null 2>&1 && $SUDO dpkg -r nfstorm >/dev/null 2>&1
  cleanup
}
trap remove_pkg EXIT
cd "$ROOT" || fail "no $ROOT"
ver=$(sed -n 's/^#define NFSTORM_VERSION "\(.*\)"$/\1/p' common/version.h)
[ "$(dpkg-parsechangelog -S Version)" = "$ver" ] || fail "debian/changelog's version is not $ver"

bin_before=$(sha256sum bin/nfstorm bin/nfstorm-agent 2>/dev/null)
start=$(date +%s.%N)
make --no-print-directory deb >"$T/deb.log" 2>&1 || fail "make deb: $(tail -15 "$T/deb.log")"
[ "$(sha256sum bin/nfstorm bin/nfstorm-agent 2>/dev/null)" = "$bin_before" ] || fail "make deb changed bin/"
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
DEB=$ROOT/build/deb/nfstorm_${ver}_$(dpkg --print-architecture).deb
[ -f "$DEB" ] || fail "no $DEB: $(ls build/deb)"

deps=$(dpkg-deb -f "$DEB" Depends)
for lib in libc6 libuv1 libmsgpackc2 libinih1 libjansson4 libssl3 liburing2 libaio1; do
  grep -q "\b$lib\b" <<<"$deps" || fail "Depends lacks $lib: $deps"
done
dpkg-deb -c "$DEB" | awk '{print $6}' >"$T/files"
for f in ./usr/bin/nfstorm ./usr/bin/nfstorm-agent ./usr/share/doc/nfstorm/copyright \
         ./usr/share/nfstorm/deploy/k8s/50-agents.yaml ./usr/share/nfstorm/deploy/systemd/nfstorm-agent.service \
         ./usr/lib/sysusers.d/nfstorm.conf; do
  grep -qx -- "$f" "$T/files" || fail "the package lacks $f"
done
if [ -f deps/libnfs/lib/pkgconfig/libnfs.pc ]; then
  grep -q '^./usr/lib/nfstorm/libnfs.so.' "$T/files" || fail "the package does not carry deps/'s libnfs"
  grep -q 'libnfs' <<<"$deps" && fail "Depends names a libnfs though the package carries its own: $deps"
  dpkg-deb -e "$DEB" "$T/ctl"
  [ -e "$T/ctl/shlibs" ] && fail "the package exports its private libnfs (shlibs: $(cat "$T/ctl/shlibs"))"
fi

$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=120 "$DEB" >"$T/apt.log" 2>&1 \
  || fail "apt-get install: $(tail -5 "$T/apt.log")"
[ "$(dpkg-query -W -f='${Status} ${Version}' nfstorm)" = "install ok installed $ver" ] || fail "not installed"
/usr/bin/nfstorm --version | grep -q "^nfstorm $ver" || fail "version: $(/usr/bin/nfstorm --version)"
# the units' User=nfstorm: the postinst made it (systemd-sysusers), no login shell
getent passwd nfstorm | grep -q ':/usr/sbin/nologin$' || fail "the package did not create user nfstorm: $(getent passwd nfstorm)"
if [ -f deps/libnfs/lib/pkgconfig/libnfs.pc ]; then
  ldd /usr/bin/nfstorm-agent | grep -Eq '=> /usr/(bin/\.\./)?lib/nfstorm/libnfs\.so\.' || fail "agent's libnfs: $(ldd /usr/bin/nfstorm-agent | grep nfs)"
fi
( cd "$T" && env -u LD_LIBRARY_PATH timeout 60 /usr/bin/nfstorm run --local 2 --quiet --json "$T/r.json" \
  --name=w --rw=write --bs=4k --size=2M >"$T/run.out" 2>&1 ) || fail "installed nfstorm's run: $(tail -5 "$T/run.out")"
check_merge "$T/r.json" write 4096 100
py "$T/r.json" <<'P'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
assert len(ph["agents"]) == 2, len(ph["agents"])
assert ph["ops"]["write"]["ops"] == 1024, ph["ops"]["write"]["ops"]
assert ph["ops"]["write"]["bytes"] == 2 * 2 * 1048576, ph["ops"]["write"]["bytes"]
P
# NFSv4 writes of 64 KiB through the installed agent: what Debian 12's libnfs
# 4.0 cannot encode, so this runs on the libnfs 5 the package carries.
nfsnote=""
if [ $NFS = 1 ]; then
  mkdir -p "$T/export"
  nfs_server_start "$T/export" || fail "NFS server did not start"
  ( cd "$T" && timeout 60 /usr/bin/nfstorm run --local 1 --quiet --json "$T/nfs.json" --name=v4 --ioengine=nfs \
      "--nfs_url=$NFS_URL4" --rw=write --bs=64k --size=2m >"$T/nfs.out" 2>&1 ) \
    || fail "installed nfstorm, NFSv4 64k writes: $(tail -3 "$T/nfs.out")"
  [ "$(stat -c %s "$T/export/v4.0.0.0")" -eq $((2 * 1024 * 1024)) ] || fail "NFSv4 file: $(ls -l "$T/export")"
  py "$T/nfs.json" <<'P'
import json, sys
o = json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]
assert o["ops"] == 32 and o["bytes"] == 2 * 1048576 and o["errors"] == 0, o
P
  nfsnote=", 32 NFSv4 writes of 64 KiB"
fi
if command -v systemd-analyze >/dev/null; then
  out=$(systemd-analyze verify --man=no /usr/share/nfstorm/deploy/systemd/nfstorm-agent.service 2>&1) \
    && [ -z "$out" ] || fail "the installed unit does not verify: $out"
fi
$SUDO dpkg -r nfstorm >/dev/null 2>&1 || fail "dpkg -r nfstorm"
[ ! -e /usr/bin/nfstorm ] && [ ! -e /usr/lib/nfstorm ] || fail "dpkg -r left files behind"
echo "ok: make deb (${secs} s) built $(basename "$DEB"); installed, ran 2 agents x 2 MiB$nfsnote, removed"
