#!/usr/bin/env bash
# Run every integration test (tests/integration/tNNNN_*.sh) and summarise.
# Usage: run.sh [PATTERN]   (only tests whose name contains PATTERN)
#        run.sh --soak      (only the soak tier, below)
#
# Tiers: a test with a line "# nfstorm-test: soak (why)" is long and
# duplicates what make test covers otherwise; it runs in `make soak`
# (run.sh --soak), or when a PATTERN names it, not in `make test`
# (docs/testing.md lists them).
#
# Tests run NFSTORM_TEST_JOBS at a time (default 2: most of a test is
# waiting on its runs' runtimes, not CPU), each in its own temp dir, on its
# own ports and, for NFS, its own ganesha.  A test that cannot share the
# machine says so with a line "# nfstorm-test: serial (why)" and runs
# alone after the others: network namespaces and routes, dpkg, CPU-heavy
# fuzzing or valgrind, and measurements that a neighbour would skew.
# rpcbind, the one thing every ganesha shares, is started here once (when
# it is not running) so that no test stops it under another's feet.
set -u
cd "$(dirname "$0")"
. ../nfs_server.sh
jobs_max=${NFSTORM_TEST_JOBS:-2}
pass=0; failn=0; skipn=0; failed=()
parallel=(); serial=()
soak_only=0; pattern=${1:-}
[ "$pattern" = --soak ] && { soak_only=1; pattern=""; }
for t in t[0-9]*_*.sh; do
  case "$t" in *"$pattern"*) ;; *) continue ;; esac
  if grep -q '^# nfstorm-test: soak' "$t"; then
    [ $soak_only = 1 ] || [ -n "$pattern" ] || continue
  else
    [ $soak_only = 0 ] || continue
  fi
  if grep -q '^# nfstorm-test: serial' "$t"; then serial+=("$t"); else parallel+=("$t"); fi
done
if command -v rpcbind >/dev/null 2>&1; then
  _nfs_start_rpcbind || echo "run.sh: rpcbind did not start; NFS tests will start their own" >&2
fi

# Run one test; its outcome goes to $res/$t (rc and seconds).
res=$(mktemp -d /tmp/nfstorm-run.XXXXXX)
# The tests' python3 is Debian's, the one the install script gives its
# packages (python3-yaml, pandas) to: a version manager's shim first on
# PATH (pyenv) runs a shell script per call, 7 s at a time on a loaded
# machine, past the 2-3 s windows a dialling test peer is given.
if [ -x /usr/bin/python3 ]; then
  mkdir -p "$res/bin" && ln -sf /usr/bin/python3 "$res/bin/python3" && PATH=$res/bin:$PATH
fi
run_one() {
  local t=$1 start rc
  start=$(date +%s)
  bash "./$t" >"/tmp/nfstorm-$t.log" 2>&1; rc=$?
  echo "$rc $(( $(date +%s) - start ))" >"$res/$t"
}
report() {
  local t=$1 rc secs
  read -r rc secs <"$res/$t"
  case $rc in
    0) pass=$((pass + 1)); echo "ok    $t (${secs}s)" ;;
    77) skipn=$((skipn + 1)); echo "skip  $t: $(tail -n1 "/tmp/nfstorm-$t.log")" ;;
    *) failn=$((failn + 1)); failed+=("$t"); echo "FAIL  $t (${secs}s)"; sed 's/^/      /' "/tmp/nfstorm-$t.log" | tail -n 20 ;;
  esac
}

declare -A running=()
for t in "${parallel[@]}"; do
  while [ "${#running[@]}" -ge "$jobs_max" ]; do
    wait -n 2>/dev/null
    for r in "${!running[@]}"; do
      [ -f "$res/$r" ] && { report "$r"; unset "running[$r]"; }
    done
  done
  run_one "$t" &
  running[$t]=$!
done
for r in "${!running[@]}"; do wait "${running[$r]}" 2>/dev/null; report "$r"; done
for t in "${serial[@]}"; do
  run_one "$t"
  report "$t"
done
rm -rf "$res"
nfs_server_stop          # only the rpcbind started above, if any
echo "integration: $pass passed, $failn failed, $skipn skipped"
[ $failn -eq 0 ]
