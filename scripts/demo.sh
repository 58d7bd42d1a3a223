#!/usr/bin/env bash
# make demo: the seeds' 4k/32m matrix on 2 local agents, twice: psync on a
# local temporary directory (no NFS mount involved), then through libnfs
# against a throw-away nfs-ganesha on 127.0.0.1 (tests/nfs_server.sh),
# which is stopped and removed on exit.  Each run prints its own report.
set -eu
cd "$(dirname "$0")/.."
echo "== nfstorm demo: 4k/32m matrix, 2 local agents, psync on a local temporary directory =="
bin/nfstorm run --local 2 --json /tmp/nfstorm-demo.json examples/seed-matrix.fio
echo "(full result: /tmp/nfstorm-demo.json)"

echo
echo "== nfstorm demo: the same matrix through libnfs (ioengine=nfs, NFSv3, iodepth 8) =="
if ! command -v ganesha.nfsd >/dev/null 2>&1; then
  echo "(skipped: nfs-ganesha is not installed; scripts/install-deps.sh installs it)"
  exit 0
fi
source tests/nfs_server.sh
EXPORT=$(mktemp -d "${TMPDIR:-/tmp}/nfstorm-demo-export.XXXXXX")
trap 'nfs_server_stop; rm -rf "$EXPORT"' EXIT
trap 'exit 130' INT TERM
nfs_server_start "$EXPORT" || { echo "demo: the NFS server did not start" >&2; exit 1; }
echo "(server: $NFS_URL3)"
NFS_URL=$NFS_URL3 bin/nfstorm run --local 2 --json /tmp/nfstorm-demo-nfs.json examples/seed-matrix-nfs.fio
echo "(full result: /tmp/nfstorm-demo-nfs.json)"
