#!/usr/bin/env bash
# Run every integration test (tests/integration/tNNNN_*.sh) and summarise.
# Usage: run.sh [PATTERN]   (only tests whose name contains PATTERN)
set -u
cd "$(dirname "$0")"
pass=0; failn=0; skipn=0; failed=()
for t in t[0-9]*_*.sh; do
  case "$t" in *"${1:-}"*) ;; *) continue ;; esac
  start=$(date +%s)
  bash "./$t" >"/tmp/nfstorm-$t.log" 2>&1; rc=$?
  secs=$(( $(date +%s) - start ))
  case $rc in
    0) pass=$((pass + 1)); echo "ok    $t (${secs}s)" ;;
    77) skipn=$((skipn + 1)); echo "skip  $t: $(tail -n1 /tmp/nfstorm-$t.log)" ;;
    *) failn=$((failn + 1)); failed+=("$t"); echo "FAIL  $t (${secs}s)"; sed 's/^/      /' "/tmp/nfstorm-$t.log" | tail -n 20 ;;
  esac
done
echo "integration: $pass passed, $failn failed, $skipn skipped"
[ $failn -eq 0 ]
