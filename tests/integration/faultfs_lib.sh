# faultfs helpers for the fault tests (t164x): sourced after lib.sh.
# faultfs_mount [RULE...] mounts tests/faultfs (built by `make faultfs`)
# over $FFS_B on $FFS_M, logging to $FFS_LOG; the EXIT trap unmounts it
# (fusermount3 -u) and stops the daemon before lib.sh's cleanup.
FAULTFS=$ROOT/build/faultfs
FFS_B=$T/backing FFS_M=$T/mnt FFS_LOG=$T/faults.log FFS_PID=
[ -e /dev/fuse ] || skip "no /dev/fuse"
command -v fusermount3 >/dev/null || skip "fusermount3 missing (fuse3: scripts/install-deps.sh)"
[ -x "$FAULTFS" ] || fail "$FAULTFS not built (make faultfs)"
# faultfs_umount: unmount, let the daemon exit (its status in FFS_RC: 0 when
# it ended cleanly, as the sanitizer build checks), kill it after 5 s
faultfs_umount() {
  [ -n "$FFS_PID" ] || return 0
  fusermount3 -u "$FFS_M" 2>/dev/null || umount -l "$FFS_M" 2>/dev/null
  for _ in $(seq 100); do kill -0 "$FFS_PID" 2>/dev/null || break; sleep 0.05; done
  kill "$FFS_PID" 2>/dev/null
  wait "$FFS_PID" 2>/dev/null; FFS_RC=$?
  FFS_PID=
}
trap 'faultfs_umount; [ -n "${KEEP:-}" ] && cp -r "$T" "$KEEP"; cleanup' EXIT
faultfs_mount() {
  local args=() r
  for r in "$@"; do args+=(--rule "$r"); done
  mkdir -p "$FFS_B" "$FFS_M"
  "$FAULTFS" --log "$FFS_LOG" ${FFS_OPTS:-} "${args[@]}" "$FFS_B" "$FFS_M" 2>"$T/faultfs.err" &
  FFS_PID=$!
  for _ in $(seq 100); do
    grep -q " $FFS_M fuse.faultfs " /proc/mounts && return 0
    kill -0 "$FFS_PID" 2>/dev/null || break
    sleep 0.05
  done
  fail "faultfs did not mount: $(cat "$T/faultfs.err")"
}
# faultfs_ctl LINE...: add rules (or clear/reset) on the mounted faultfs
faultfs_ctl() { printf '%s\n' "$@" >"$FFS_M/.faultfs" || fail "faultfs control write refused: $*"; }
# ffs_plan FILE PREFIX ENGINE NPHASES [KEY=VALUE...]: NPHASES write phases
# over $FFS_M/PREFIX.<agent> (4 KiB blocks, 64 KiB per agent), each writing
# verified blocks (verify=$FFS_VERIFY, default crc32c) and reading them back
# (do_verify=1)
ffs_plan() {
  local f=$1 pre=$2 eng=$3 n=$4 i kv; shift 4
  {
    printf '[global]\ndirectory=%s\nfilename_format=%s.$agent\nbs=4k\nsize=64k\n' "$FFS_M" "$pre"
    printf 'ioengine=%s\nverify=%s\ndo_verify=1\n' "$eng" "${FFS_VERIFY:-crc32c}"
    [ "$eng" = io_uring ] && echo iodepth=8
    for kv in "$@"; do echo "$kv"; done
    for i in $(seq "$n"); do printf '[w%s]\nrw=write\nstonewall\n' "$i"; done
  } >"$f"
}
# ffs_run NAME PLAN [OPTIONS]: the plan on 3 local agents; exit status in
# RC, result in $T/NAME.json, output in $T/NAME.out
ffs_run() {
  local name=$1 plan=$2; shift 2
  timeout 60 "$NFSTORM" run "$plan" --local 3 --quiet --json "$T/$name.json" "$@" >"$T/$name.out" 2>&1
  RC=$?
  [ $RC -ne 124 ] || fail "$name: hung (killed after 60 s)"
  [ -s "$T/$name.json" ] || fail "$name: exit $RC, no result: $(tail -n 3 "$T/$name.out")"
}
# ffs_check NAME [faultcheck.py options]: the result's verify matches the log
ffs_check() {
  local name=$1; shift
  python3 "$ROOT/tests/integration/py/faultcheck.py" "$T/$name.json" "$FFS_LOG" "$@" \
    || fail "$name: verify results do not match faultfs's log (output: $(tail -n 2 "$T/$name.out"))"
}
ENGINES="psync io_uring"
# ffs_verdict NAME FILE OFFSET KIND: the run's text verdict names the block
ffs_verdict() {
  grep -Eq "^verdict: failed: .*/$2 offset $3: $4: " "$T/$1.out" \
    || fail "$1: verdict does not name $2 offset $3 ($4): $(grep '^verdict' "$T/$1.out")"
}
