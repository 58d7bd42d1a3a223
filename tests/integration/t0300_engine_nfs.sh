#!/usr/bin/env bash
# t0300: the nfs engine's unit test (tests/unit/test_engine_nfs.c) against a
# real ganesha server, over NFSv3 and NFSv4.  Exit 0 pass, 1 fail, 77 skip.
#
# The binary is the Makefile's (make unit-bin-test_engine_nfs: the same
# flags, the flavour of the make that runs the tests, e.g. SANITIZE=1), not
# a build of its own with a copy of the flags.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
command -v ganesha.nfsd >/dev/null 2>&1 || { echo "t0300: ganesha.nfsd missing: skip"; exit 77; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/nfstorm-t0300.XXXXXX")
source "$ROOT/tests/nfs_server.sh"
cleanup() { nfs_server_stop; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

if ! BIN=$(make --no-print-directory -s unit-bin-test_engine_nfs 2>"$WORK/make.log") || [ ! -x "$BIN" ]; then
  echo "t0300: FAIL: cannot build the test: $(tail -n 5 "$WORK/make.log")" >&2
  exit 1
fi

mkdir -p "$WORK/export"
nfs_server_start "$WORK/export" || { echo "t0300: FAIL: NFS server did not start" >&2; exit 1; }

fail=0
for url in "$NFS_URL3" "$NFS_URL4"; do
  if ! NFSTORM_TEST_NFS_URL="$url" timeout 300 "$BIN"; then
    echo "t0300: FAIL against $url" >&2
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "t0300: PASS"
exit $fail
