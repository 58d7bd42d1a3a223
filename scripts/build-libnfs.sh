#!/usr/bin/env bash
# Build the project's patched libnfs 5.x into deps/libnfs (always, whatever
# libnfs the system has).
#
# Why: Debian 12 ships libnfs 4.0.0, whose NFSv4 WRITE fails to encode for
# any write of ~4000 bytes or more ("ZDR error: Failed to encode
# COMPOUND4args"), so the nfs engine cannot do NFSv4 writes with it.  libnfs
# 5.0.2 (Debian 13) fixes that.  And the nfs engine times every RPC through
# a per-RPC observer no released libnfs has (scripts/libnfs-observer.patch,
# the project's own; scripts/libnfs-batch-io.patch adds batched sends and
# reads, which the engine uses when present), so even a system libnfs >= 5
# will not do.  We take
# Debian's source package (a known, signed tarball) through apt with a
# throw-away source list, state and cache dir, so the system's apt
# configuration is never changed, and install into a project-local prefix
# the Makefile links with an rpath.
#
# Idempotent and quiet: does nothing when deps/libnfs carries the stamp of
# this script's patches (an older, unpatched build is rebuilt); prints the
# build log only on failure.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# PREFIX=DIR: build there instead (a private libnfs to try a patch on,
# while deps/libnfs stays as it is for whoever uses it).
PREFIX=${PREFIX:-$ROOT/deps/libnfs}
PC="$PREFIX/lib/pkgconfig/libnfs.pc"
OBSERVER_PATCH="$ROOT/scripts/libnfs-observer.patch"
# Batched socket I/O and one timeout scan per clock tick (rpc_set_batch_io,
# opt-in: a program that does not ask, fio among them, gets upstream libnfs):
# the project's own, applied after the observer (docs/architecture.md, "The
# op loop").
BATCH_PATCH="$ROOT/scripts/libnfs-batch-io.patch"
STAMP_FILE="$PREFIX/.nfstorm-patches"
# The stamp names what the build contains: change it with the patches.
STAMP="observer-1 $(sha256sum "$OBSERVER_PATCH" | cut -d' ' -f1) batch-io-1 $(sha256sum "$BATCH_PATCH" | cut -d' ' -f1)"

if [ -f "$PC" ] && [ -f "$STAMP_FILE" ] && [ "$(cat "$STAMP_FILE")" = "$STAMP" ]; then
  exit 0
fi

for tool in cmake patch xz tar make cc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "build-libnfs: $tool is missing (run scripts/install-deps.sh)" >&2
    exit 1
  fi
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/nfstorm-libnfs.XXXXXX")
LOG="$TMP/build.log"
STAGE="$PREFIX.stage"
cleanup() { rm -rf "$TMP" "$STAGE"; }
fail() {
  echo "build-libnfs: $1 (log follows)" >&2
  [ -f "$LOG" ] && tail -n 60 "$LOG" >&2
  exit 1
}
trap cleanup EXIT

# A private apt world: our own source list, lists dir and cache dir (so the
# system's package lists and pkgcache.bin are left alone).  Downloads run as
# root because the temp dirs are not readable by apt's _apt sandbox user.
mkdir -p "$TMP/lists/partial" "$TMP/cache/archives/partial" "$TMP/src"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
cat >"$TMP/sources.list" <<EOF
deb-src [signed-by=$KEYRING] http://deb.debian.org/debian trixie main
deb-src [signed-by=$KEYRING] http://deb.debian.org/debian-security trixie-security main
EOF
APTOPTS=(-o "Dir::Etc::SourceList=$TMP/sources.list"
         -o "Dir::Etc::SourceParts=/dev/null"
         -o "Dir::State::Lists=$TMP/lists"
         -o "Dir::Cache=$TMP/cache"
         -o "APT::Sandbox::User=root")

apt-get "${APTOPTS[@]}" -qq update >>"$LOG" 2>&1 || fail "apt-get update of the trixie source lists failed"

# apt-get source fetches the .dsc, the orig tarball and the Debian tarball.
# Some mirrors/proxies serve the tarballs but not the .dsc (seen here: the
# .dsc 404s), and we do not need the .dsc since we build the orig tree
# ourselves; so any file it could not fetch is fetched again with apt's own
# downloader, checked against the SHA256 from the signed Sources index.
cd "$TMP/src"
if ! apt-get "${APTOPTS[@]}" -qq source --download-only libnfs >>"$LOG" 2>&1; then
  apt-get "${APTOPTS[@]}" -qq --print-uris source libnfs >"$TMP/uris" 2>>"$LOG" \
    || fail "apt-get source libnfs failed"
  while read -r uri name _size hash; do
    case "$name" in *.dsc) continue ;; esac
    [ -f "$name" ] && continue
    /usr/lib/apt/apt-helper "${APTOPTS[@]}" download-file "${uri//\'/}" "$TMP/src/$name" "$hash" \
      >>"$LOG" 2>&1 || fail "cannot download $name"
  done <"$TMP/uris"
fi
cd "$ROOT"

orig=$(ls "$TMP"/src/libnfs_*.orig.tar.* 2>/dev/null | head -n 1)
[ -n "$orig" ] || fail "no libnfs orig tarball downloaded"
ver=$(basename "$orig" | sed -e 's/^libnfs_//' -e 's/\.orig\.tar\..*$//')
case "$ver" in
  [5-9].*|[1-9][0-9]*) ;;
  *) fail "trixie offers libnfs $ver, not >= 5.0" ;;
esac

mkdir -p "$TMP/tree"
tar -xf "$orig" -C "$TMP/tree" --strip-components=1 >>"$LOG" 2>&1 || fail "cannot unpack $orig"

# Debian's patches carry its security fixes (5.0.2-1+deb13u1: CVE-2026-53689),
# so apply them like dpkg-source would (quilt series, -p1).
deb=$(ls "$TMP"/src/libnfs_*.debian.tar.* 2>/dev/null | head -n 1)
if [ -n "$deb" ]; then
  tar -xf "$deb" -C "$TMP/tree" >>"$LOG" 2>&1 || fail "cannot unpack $deb"
  if [ -f "$TMP/tree/debian/patches/series" ]; then
    while read -r patch _; do
      case "$patch" in ''|'#'*) continue ;; esac
      patch -d "$TMP/tree" -p1 -s -N <"$TMP/tree/debian/patches/$patch" >>"$LOG" 2>&1 \
        || fail "Debian patch $patch does not apply"
    done <"$TMP/tree/debian/patches/series"
  fi
fi

# The per-RPC observer (rpc_set_observer): the project's own patch.
patch -d "$TMP/tree" -p1 -s -N <"$OBSERVER_PATCH" >>"$LOG" 2>&1 \
  || fail "scripts/libnfs-observer.patch does not apply"
patch -d "$TMP/tree" -p1 -s -N <"$BATCH_PATCH" >>"$LOG" 2>&1 \
  || fail "scripts/libnfs-batch-io.patch does not apply"

# Two small fixes to upstream 5.0.2, both outside the wire protocol:
# 5.0.2 prints "reconnect reset waitpdu queues" to stdout on every reconnect
# attempt (a leftover debug printf); an agent retrying a restarting server
# would spam its stdout with it, so drop that one line.
sed -i '/printf("reconnect reset waitpdu queues\\n");/d' "$TMP/tree/lib/socket.c"
# nfs4_set_client_name() overwrites the default name nfs_init_context() set
# without freeing it: a leak per context that fails every LeakSanitizer run
# of the nfs engine (which must set a unique name per context).
sed -i 's/^\([[:space:]]*\)nfs->nfsi->client_name = strdup(client_name);/\1free(nfs->nfsi->client_name);\n&/' "$TMP/tree/lib/libnfs.c"
grep -A1 'free(nfs->nfsi->client_name);' "$TMP/tree/lib/libnfs.c" | grep -q 'client_name = strdup' \
  || fail "client_name leak patch did not apply"

# Utils (nfs-cp, nfs-ls, ...) are built too: the NFS test harness uses them
# to check large NFSv4 writes, which the system's 4.0 utils cannot do.  The
# project does not install them, so they are copied below; they are built
# with the install rpath so they run from there.
cmake -S "$TMP/tree" -B "$TMP/build" \
      -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_INSTALL_PREFIX="$PREFIX" \
      -DCMAKE_INSTALL_LIBDIR=lib \
      -DCMAKE_INSTALL_RPATH="$PREFIX/lib" -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON \
      -DBUILD_SHARED_LIBS=ON \
      -DENABLE_UTILS=ON -DENABLE_EXAMPLES=OFF -DENABLE_TESTS=OFF \
      -DENABLE_DOCUMENTATION=OFF >>"$LOG" 2>&1 || fail "cmake configure failed"
cmake --build "$TMP/build" -j "$(nproc 2>/dev/null || echo 2)" >>"$LOG" 2>&1 || fail "build failed"

# Install into a staging dir on the same file system, then rename into
# place, so an interrupted run never leaves a half-installed prefix that the
# cache check above would trust.
rm -rf "$STAGE"
DESTDIR="$STAGE" cmake --install "$TMP/build" >>"$LOG" 2>&1 || fail "install failed"
[ -f "$STAGE$PC" ] || fail "the build did not install lib/pkgconfig/libnfs.pc"
mkdir -p "$STAGE$PREFIX/bin"
for u in nfs-cat nfs-ls nfs-cp nfs-stat; do
  if [ -x "$TMP/build/utils/$u" ]; then cp "$TMP/build/utils/$u" "$STAGE$PREFIX/bin/"; fi
done
grep -q 'rpc_set_observer' "$STAGE$PREFIX/include/nfsc/libnfs-raw.h" \
  || fail "the installed headers lack rpc_set_observer"
echo "$STAMP" >"$STAGE$STAMP_FILE"
rm -rf "$PREFIX"
mv "$STAGE$PREFIX" "$PREFIX"
rm -rf "$STAGE"
