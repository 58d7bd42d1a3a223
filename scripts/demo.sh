#!/usr/bin/env bash
# make demo: the seeds' 4k/32m matrix on 2 local agents through the
# kernel-mount engine (a temporary directory), printed as one report.
set -eu
cd "$(dirname "$0")/.."
echo "== nfstorm demo: 4k/32m matrix, 2 local agents, kernel-mount engine (psync) =="
bin/nfstorm run --local 2 --json /tmp/nfstorm-demo.json examples/seed-matrix.fio
echo "(full result: /tmp/nfstorm-demo.json)"
