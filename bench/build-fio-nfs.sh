#!/usr/bin/env bash
# Build fio 3.33 with its nfs engine against the project's libnfs, for
# bench/nfs-vs-fio.sh.  Prints the path of the fio binary on stdout.
#
# Why build: Debian's fio package is built without libnfs, so it has no
# ioengine=nfs.  The source is Debian 12's fio source package (3.33, the
# version the issue measured against), fetched as scripts/build-libnfs.sh
# fetches libnfs: a throw-away apt source list, state and cache dir, so the
# system's apt configuration is never touched.  fio's configure enables the
# nfs engine when pkg-config finds libnfs; PKG_CONFIG_PATH points it at
# deps/libnfs (when present) so both programs use the same libnfs.  The build
# is cached in build/bench-fio/ (delete it to rebuild).
#
# FIO=/path/to/fio: use that fio if it has ioengine=nfs (nothing is built).
# FIO_SRC=DIR: build from this unpacked fio source tree instead of apt.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/build/bench-fio"
BIN="$OUT/fio"

has_nfs() { "$1" --enghelp 2>/dev/null | grep -qw nfs; }

if [ -n "${FIO:-}" ]; then
  has_nfs "$FIO" || { echo "build-fio-nfs: $FIO has no nfs engine" >&2; exit 1; }
  echo "$FIO"; exit 0
fi
if [ -x "$BIN" ] && has_nfs "$BIN"; then
  echo "$BIN"; exit 0
fi

mkdir -p "$OUT"
LOG="$OUT/build.log"
: >"$LOG"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nfstorm-fio.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "build-fio-nfs: $1 (log: $LOG)" >&2; tail -n 30 "$LOG" >&2; exit 1; }

SRC=${FIO_SRC:-}
if [ -z "$SRC" ]; then
  mkdir -p "$TMP/lists/partial" "$TMP/cache/archives/partial" "$TMP/src"
  KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
  cat >"$TMP/sources.list" <<SL
deb-src [signed-by=$KEYRING] http://deb.debian.org/debian bookworm main
SL
  APTOPTS=(-o "Dir::Etc::SourceList=$TMP/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
           -o "Dir::State::Lists=$TMP/lists" -o "Dir::Cache=$TMP/cache"
           -o "APT::Sandbox::User=root")
  apt-get "${APTOPTS[@]}" -qq update >>"$LOG" 2>&1 || fail "apt-get update of the bookworm source list failed"
  cd "$TMP/src"
  if ! apt-get "${APTOPTS[@]}" -qq source --download-only fio >>"$LOG" 2>&1; then
    # as build-libnfs.sh: fetch what apt could not (a .dsc a mirror lacks),
    # checked against the hash of the signed Sources index
    apt-get "${APTOPTS[@]}" -qq --print-uris source fio >"$TMP/uris" 2>>"$LOG" || fail "apt-get source fio failed"
    while read -r uri name _size hash; do
      case "$name" in *.dsc) continue ;; esac
      [ -f "$name" ] && continue
      /usr/lib/apt/apt-helper "${APTOPTS[@]}" download-file "${uri//\'/}" "$TMP/src/$name" "$hash" \
        >>"$LOG" 2>&1 || fail "cannot download $name"
    done <"$TMP/uris"
  fi
  orig=$(ls "$TMP"/src/fio_*.orig.tar.* 2>/dev/null | head -n 1)
  [ -n "$orig" ] || fail "no fio orig tarball downloaded"
  mkdir -p "$TMP/tree"
  tar -xf "$orig" -C "$TMP/tree" --strip-components=1 >>"$LOG" 2>&1 || fail "cannot unpack $orig"
  SRC="$TMP/tree"
else
  mkdir -p "$TMP/tree"
  cp -a "$SRC/." "$TMP/tree/"   # never build inside the given tree
  SRC="$TMP/tree"
fi

cd "$SRC"
PCP=""
[ -f "$ROOT/deps/libnfs/lib/pkgconfig/libnfs.pc" ] && PCP="$ROOT/deps/libnfs/lib/pkgconfig"
PKG_CONFIG_PATH="$PCP${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" ./configure --enable-libnfs \
  --disable-native >>"$LOG" 2>&1 || fail "fio configure failed"
rpath=""
[ -n "$PCP" ] && rpath="-Wl,-rpath,$ROOT/deps/libnfs/lib"
make -j"${JOBS:-2}" EXTLIBS="$rpath" fio >>"$LOG" 2>&1 || fail "fio build failed"
cp fio "$BIN"
has_nfs "$BIN" || fail "the fio built has no nfs engine"
echo "$BIN"
