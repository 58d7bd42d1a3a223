#!/usr/bin/env bash
# t0300: the nfs engine's unit test (tests/unit/test_engine_nfs.c) against a
# real ganesha server, over NFSv3 and NFSv4.  Exit 0 pass, 1 fail, 77 skip.
#
# Why its own build: the test binary links only agent/engine_nfs.c and
# agent/nfs_conn.c (and the log, the
# op-type names and histograms it reports with), so this
# runs even while other modules do not link.  It uses the deps/libnfs build
# (libnfs 5) when present, like the Makefile.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
command -v ganesha.nfsd >/dev/null 2>&1 || { echo "t0300: ganesha.nfsd missing: skip"; exit 77; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/nfstorm-t0300.XXXXXX")
source "$ROOT/tests/nfs_server.sh"
cleanup() { nfs_server_stop; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

if [ -f deps/libnfs/lib/pkgconfig/libnfs.pc ]; then
  NFS_FLAGS="-I$ROOT/deps/libnfs/include -L$ROOT/deps/libnfs/lib -Wl,-rpath,$ROOT/deps/libnfs/lib -lnfs"
else
  NFS_FLAGS=$(pkg-config --cflags --libs libnfs)
fi
# shellcheck disable=SC2086,SC2046
if ! ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -g -pthread -Wall -Wextra -Werror -Wshadow \
     -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla -Wimplicit-fallthrough \
     -I. -o "$WORK/test_engine_nfs" tests/unit/test_engine_nfs.c agent/engine_nfs.c agent/nfs_conn.c common/log.c common/stats.c common/hist.c common/xmalloc.c \
     $(pkg-config --cflags --libs libuv) $NFS_FLAGS -lcmocka; then
  echo "t0300: FAIL: cannot build the test" >&2
  exit 1
fi

mkdir -p "$WORK/export"
nfs_server_start "$WORK/export" || { echo "t0300: FAIL: NFS server did not start" >&2; exit 1; }

fail=0
for url in "$NFS_URL3" "$NFS_URL4"; do
  if ! NFSTORM_TEST_NFS_URL="$url" timeout 300 "$WORK/test_engine_nfs"; then
    echo "t0300: FAIL against $url" >&2
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "t0300: PASS"
exit $fail
