#!/usr/bin/env bash
# How many of a directory of fio job files nfstorm accepts: each file through
# `nfstorm run --dry-run` (run from the file's directory, so relative
# includes and filenames resolve as fio resolves them), counted as accepted
# (exit 0, no warning), warned (exit 0 with warnings) or refused (any other
# exit), and each refusal put in a category by the key or value its one-line
# error names.  Usage: bench/fio-examples-compat.sh DIR [NFSTORM]
# (DIR: e.g. fio's examples/; NFSTORM: the binary, default bin/nfstorm).
# -v lists every file with its outcome and the first line of its error.
set -u
verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
dir=${1:?usage: bench/fio-examples-compat.sh [-v] DIR [NFSTORM]}
root=$(cd "$(dirname "$0")/.." && pwd)
nfstorm=${2:-$root/bin/nfstorm}
[ -d "$dir" ] || { echo "fio-examples-compat: $dir: not a directory" >&2; exit 2; }
[ -x "$nfstorm" ] || { echo "fio-examples-compat: $nfstorm: not executable" >&2; exit 2; }
dir=$(cd "$dir" && pwd)
tmp=$(mktemp -d /tmp/fio-compat.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# the category of one error line
category() {
  local e=$1 k
  case "$e" in
  *"engine, which nfstorm does not have"*) echo "foreign engine's option"; return ;;
  *"for 'ioengine': '"*)
    k=${e#*for \'ioengine\': \'}; k=${k%%\'*}
    case "$k" in
    libaio|posixaio|mmap|sync|psync|vsync|pvsync|pvsync2|filecreate|filestat|filedelete|io_uring)
      echo "file engine ($k)" ;;
    *) echo "foreign engine" ;;
    esac
    return ;;
  *"zoned block devices"*) echo "zoned device"; return ;;
  *"profile"*) echo "profile"; return ;;
  *"trim"*) echo "trim"; return ;;
  *"/dev/"*|*"block device"*) echo "block device"; return ;;
  *"unknown key"*) echo "unknown key"; return ;;
  *"not yet implemented"*) echo "not yet implemented"; return ;;
  esac
  # otherwise the key the error names: "for 'KEY'", "'KEY' is refused", ...
  k=$(printf '%s\n' "$e" | sed -nE "s/.*bad value for '([^']+)'.*/\\1/p; t; s/.*: '([^']+)' (is refused|cannot).*/\\1/p" | head -n 1)
  echo "other: ${k:-?}"
}

acc=0 warned=0 refused=0 n=0
: >"$tmp/cats"
for f in "$dir"/*.fio; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  b=$(basename "$f")
  (cd "$dir" && timeout 20 "$nfstorm" run --dry-run "$b") >/dev/null 2>"$tmp/err" </dev/null
  rc=$?
  if [ $rc -eq 0 ]; then
    w=$(grep -c '^nfstorm: warning: ' "$tmp/err")
    if [ "$w" -eq 0 ]; then acc=$((acc + 1)); out=accepted; else warned=$((warned + 1)); out="warned ($w)"; fi
    [ $verbose -eq 1 ] && printf '%-32s %s\n' "$b" "$out"
  else
    refused=$((refused + 1))
    e=$(grep -v '^nfstorm: warning: ' "$tmp/err" | head -n 1)
    [ -n "$e" ] || e="exit $rc, no message"
    c=$(category "$e")
    echo "$c" >>"$tmp/cats"
    [ $verbose -eq 1 ] && printf '%-32s refused [%s] %s\n' "$b" "$c" "$e"
  fi
done
echo "fio job files in $dir: $n: $acc accepted, $warned warned, $refused refused"
if [ $refused -gt 0 ]; then
  echo "refused by category:"
  sort "$tmp/cats" | uniq -c | sort -rn | awk '{c=$1; $1=""; printf "  %3d %s\n", c, substr($0, 2)}'
fi
