# faultfs helpers for the fault tests (t164x): sourced after lib.sh.
# faultfs_mount [RULE...] mounts tests/faultfs (built by `make faultfs`)
# over $FFS_B on $FFS_M, logging to $FFS_LOG; the EXIT trap unmounts it
# (fusermount3 -u) and stops the daemon before lib.sh's cleanup.
FAULTFS=$ROOT/build/faultfs
FFS_B=$T/backing FFS_M=$T/mnt FFS_LOG=$T/faults.log FFS_PID=
[ -e /dev/fuse ] || skip "no /dev/fuse"
command -v fusermount3 >/dev/null || skip "fusermount3 missing (fuse3: scripts/install-deps.sh)"
[ -x "$FAULTFS" ] || fail "$FAULTFS not built (make faultfs)"
faultfs_umount() {
  if [ -n "$FFS_PID" ]; then
    fusermount3 -u "$FFS_M" 2>/dev/null || umount -l "$FFS_M" 2>/dev/null
    kill "$FFS_PID" 2>/dev/null; wait "$FFS_PID" 2>/dev/null
    FFS_PID=
  fi
}
trap 'faultfs_umount; cleanup' EXIT
faultfs_mount() {
  local args=() r
  for r in "$@"; do args+=(--rule "$r"); done
  mkdir -p "$FFS_B" "$FFS_M"
  "$FAULTFS" --log "$FFS_LOG" "${args[@]}" "$FFS_B" "$FFS_M" 2>"$T/faultfs.err" &
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
