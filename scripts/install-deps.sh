#!/usr/bin/env bash
# Install every Debian package that building, testing and the demo need.
# Idempotent: does nothing (and needs no network) when everything is present.
set -eu
PKGS="build-essential pkg-config cmake dpkg-dev xz-utils python3 iproute2 procps
      libuv1-dev libmsgpack-dev libinih-dev libnfs-dev libcmocka-dev libssl-dev libjansson-dev
      liburing-dev libaio-dev clang libclang-rt-14-dev fuse3 libfuse3-dev
      fio nfs-ganesha nfs-ganesha-vfs rpcbind libnfs-utils valgrind chromium
      debhelper python3-yaml systemd gnuplot-nox python3-pandas
      openssh-server openssh-client slurm-wlm munge"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "install-deps: installing:$missing" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # ganesha's maintainer scripts try to start services; there is no init here.
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# Debian 12's libnfs 4.0 cannot do NFSv4 writes >= ~4000 bytes, and no libnfs has
# the per-RPC observer the nfs engine needs: always build the patched 5.x
# into deps/libnfs (a no-op when the build there carries the current patches).
"$(dirname "$0")/build-libnfs.sh"
