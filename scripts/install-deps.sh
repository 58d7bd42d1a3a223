#!/usr/bin/env bash
# Install the Debian packages a make target needs, in tiers:
#   install-deps.sh build   building bin/nfstorm and bin/nfstorm-agent
#   install-deps.sh demo    build + what `make demo` runs (a local nfs-ganesha)
#   install-deps.sh bench   build + fio (bench/*-vs-fio.sh)
#   install-deps.sh test    demo + what `make test` runs (the default)
# Every tier then builds the patched libnfs into deps/libnfs.
# Idempotent: does nothing (and needs no network) when everything is present.
#
# Some test packages ship services (openssh-server: sshd, munge: munged,
# slurm-wlm: slurmd/slurmctld, rpcbind, nfs-ganesha).  The tests start the
# daemons they need themselves, on their own ports (tests/sshd.sh,
# tests/slurm.sh, tests/nfs_server.sh), so the install must neither start
# nor enable any of them: a policy-rc.d answering 101 ("action forbidden")
# holds for the apt run and the machine's own policy-rc.d (if any) is put
# back after; units the install enabled are disabled again.
set -eu
TIER=${1:-test}

# Each entry: "package  why".  Tiers add to the one before them.
BUILD_PKGS='
build-essential   cc, make, and (through dpkg-dev) patch for the libnfs build
pkg-config        the Makefile finds every library below through it
libuv1-dev        event loop of the coordinator and the agent
libmsgpack-dev    the wire format (proto/)
libinih-dev       plan (fio job file) parsing
libjansson-dev    JSON results, journal and outputs
libssl-dev        libcrypto: HMAC of the handshake, SHA-256
liburing-dev      the io_uring engine
libaio-dev        the libaio engine
cmake             scripts/build-libnfs.sh builds libnfs 5 with it
xz-utils          unpacks the libnfs source tarball
'
DEMO_PKGS='
python3           tests/nfs_server.sh picks free ports and probes them
nfs-ganesha       the throw-away user-space NFS server of the demo
nfs-ganesha-vfs   its backend exporting a local directory
rpcbind           ganesha exits at start without a running rpcbind; rpcinfo
libnfs-utils      nfs-ls: tests/nfs_server.sh waits until the export answers
'
BENCH_PKGS='
fio               the reference bench/*-vs-fio.sh compares against
'
TEST_PKGS='
libcmocka-dev     unit tests (tests/unit/)
iproute2          ip netns, veth and tc for the multi-host and shaped-link tests
procps            pgrep/ps in tests that check what processes are left
fio               fio-compatibility tests run the same job through fio
fuse3             fusermount3: faultfs, the faulty file system (t16xx)
libfuse3-dev      building faultfs (make faultfs)
clang             libFuzzer harnesses (make fuzz-smoke, t0700)
libclang-rt-14-dev  the libFuzzer runtime clang links
valgrind          the agent and the fuzz replays under valgrind (t0710, t1767)
chromium          headless rendering of the HTML reports (t0530, t1345, t133x)
python3-yaml      parsing the Kubernetes manifests and compose files (t104x)
python3-pandas    fiologparser_hist.py over the fio logs (t1561, t1563)
gnuplot-nox       fio_generate_plots over the fio logs (t1561)
systemd           systemd-analyze verify of deploy/systemd units (t1043, t1041)
debhelper         make deb (t1041)
dpkg-dev          dpkg-buildpackage for make deb (t1041)
openssh-server    sshd the hosts-file spawn tests start on their own port (t102x, t1093)
openssh-client    ssh, ssh-keygen for those tests
slurm-wlm         slurmctld/slurmd/srun/sbatch the Slurm tests start (t1025, t1044)
munge             Slurm authentication for those tests
'

names() { printf '%s\n' "$@" | awk 'NF && $1 !~ /^#/ {print $1}'; }
case "$TIER" in
  build) list=$(names "$BUILD_PKGS") ;;
  demo)  list=$(names "$BUILD_PKGS" "$DEMO_PKGS") ;;
  bench) list=$(names "$BUILD_PKGS" "$BENCH_PKGS") ;;
  test)  list=$(names "$BUILD_PKGS" "$DEMO_PKGS" "$TEST_PKGS") ;;
  list)  printf '%s' "$BUILD_PKGS$DEMO_PKGS$BENCH_PKGS$TEST_PKGS" | awk 'NF'; exit 0 ;;
  *) echo "install-deps: unknown tier '$TIER' (build, demo, bench, test or list)" >&2; exit 2 ;;
esac
list=$(printf '%s\n' $list | awk '!seen[$0]++')

missing=""
for p in $list; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

if [ -n "$missing" ]; then
  echo "install-deps ($TIER): installing:$missing" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  POLICY=${NFSTORM_POLICY_RC_D:-/usr/sbin/policy-rc.d}   # (overridden by t1852 only)
  SAVED=$(mktemp "${TMPDIR:-/tmp}/nfstorm-policy-rc.XXXXXX")
  had_policy=0
  if [ -e "$POLICY" ]; then $SUDO cp -p "$POLICY" "$SAVED"; had_policy=1; fi
  restore_policy() {
    if [ $had_policy -eq 1 ]; then $SUDO cp -p "$SAVED" "$POLICY"; else $SUDO rm -f "$POLICY"; fi
    $SUDO rm -f "$SAVED"
  }
  trap restore_policy EXIT
  printf '#!/bin/sh\n# scripts/install-deps.sh: no service starts while it installs\nexit 101\n' \
    | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod 0755 "$POLICY"
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
  # policy-rc.d stops the starts, not the enabling: undo that for the units
  # the packages just installed ship (the tests start their daemons themselves).
  for p in $missing; do
    for u in $(dpkg -L "$p" 2>/dev/null | grep -E '^/(usr/)?lib/systemd/system/[^/]+\.(service|socket|timer)$' || true); do
      u=$(basename "$u")
      case "$u" in *@.*) continue ;; esac
      if command -v deb-systemd-helper >/dev/null 2>&1 && deb-systemd-helper --quiet was-enabled "$u" 2>/dev/null; then
        $SUDO deb-systemd-helper disable "$u" >/dev/null 2>&1 || true
      fi
    done
  done
  restore_policy
  trap - EXIT
fi
# Debian 12's libnfs 4.0 cannot do NFSv4 writes >= ~4000 bytes, and no libnfs has
# the per-RPC observer the nfs engine needs: always build the patched 5.x
# into deps/libnfs (a no-op when the build there carries the current patches).
"$(dirname "$0")/build-libnfs.sh"
