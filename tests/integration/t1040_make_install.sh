#!/usr/bin/env bash
# make install DESTDIR=... PREFIX=/usr: exactly the expected files with the
# expected modes; the binaries' only library path is $ORIGIN/../lib/nfstorm,
# which holds the libnfs the build links from deps/; and a copy of the
# installed tree, with the original removed, runs a real 2-agent --local run
# whose result is exact.
. "$(dirname "$0")/lib.sh"
command -v readelf >/dev/null || skip "readelf is missing (binutils)"
cd "$ROOT" || fail "no $ROOT"
make --no-print-directory install DESTDIR="$T/root" PREFIX=/usr >"$T/install.log" 2>&1 \
  || fail "make install: $(tail -5 "$T/install.log")"

# The file list: binaries, docs, examples, deploy/, and libnfs when deps/ has it.
{
  echo usr/bin/nfstorm; echo usr/bin/nfstorm-agent
  echo usr/share/doc/nfstorm/README.md
  for f in docs/*.md; do echo "usr/share/doc/nfstorm/${f#docs/}"; done
  find examples -type f | while read -r f; do echo "usr/share/doc/nfstorm/examples/${f#examples/}"; done
  git ls-files deploy | sed 's|^|usr/share/nfstorm/|'
  if [ -f deps/libnfs/lib/pkgconfig/libnfs.pc ]; then
    (cd deps/libnfs/lib && ls -d libnfs.so.*) | sed 's|^|usr/lib/nfstorm/|'
  fi
} | sort >"$T/want"
(cd "$T/root" && find . -type f -o -type l | sed 's|^\./||' | sort) >"$T/got"
diff "$T/want" "$T/got" >"$T/diff" || fail "installed files differ from the expected list: $(cat "$T/diff")"
nfiles=$(wc -l <"$T/got")
[ "$nfiles" -ge 30 ] || fail "only $nfiles files installed"
for b in nfstorm nfstorm-agent; do
  [ "$(stat -c %a "$T/root/usr/bin/$b")" = 755 ] || fail "$b is not mode 755"
done
bad=$(cd "$T/root" && find usr/share -type f ! -perm 0644)
[ -z "$bad" ] || fail "not mode 644: $bad"

# Library paths: none into the build tree.
for b in nfstorm nfstorm-agent; do
  rp=$(readelf -d "$T/root/usr/bin/$b" | sed -n 's/.*(\(RPATH\|RUNPATH\)).*\[\(.*\)\]/\2/p')
  if [ -f deps/libnfs/lib/pkgconfig/libnfs.pc ]; then
    [ "$rp" = '$ORIGIN/../lib/nfstorm' ] || fail "$b's runpath is '$rp'"
  else
    [ -z "$rp" ] || fail "$b has a runpath ($rp) though it links the system's libnfs"
  fi
  readelf -d "$T/root/usr/bin/$b" | grep -q "$ROOT" && fail "$b's dynamic section names the build tree"
done

# A copy of the tree runs without the original (nor the build tree's bin/).
cp -a "$T/root" "$T/copy" && rm -rf "$T/root"
B=$T/copy/usr/bin
if [ -f deps/libnfs/lib/pkgconfig/libnfs.pc ]; then
  lib=$(env -u LD_LIBRARY_PATH ldd "$B/nfstorm-agent" | awk '/libnfs/ {print $3}')
  [ "$lib" = "$B/../lib/nfstorm/$(readelf -d "$B/nfstorm-agent" | sed -n 's/.*NEEDED.*\[\(libnfs[^]]*\)\]/\1/p')" ] \
    || fail "the copied agent finds libnfs at '$lib'"
fi
env -u LD_LIBRARY_PATH ldd "$B/nfstorm-agent" "$B/nfstorm" | grep -q 'not found' && fail "a library is not found: $(ldd "$B/nfstorm-agent")"
"$B/nfstorm" --version | grep -q "^nfstorm $(sed -n 's/^#define NFSTORM_VERSION "\(.*\)"$/\1/p' common/version.h)" \
  || fail "version: $("$B/nfstorm" --version)"
env -u LD_LIBRARY_PATH timeout 60 "$B/nfstorm" run --local 2 --quiet --json "$T/r.json" \
  --name=w --rw=write --bs=4k --size=1M >"$T/run.out" 2>&1 || fail "the copied nfstorm's run: $(tail -5 "$T/run.out")"
check_merge "$T/r.json" write 4096 100
py "$T/r.json" <<'P'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
assert len(ph["agents"]) == 2, len(ph["agents"])
assert ph["ops"]["write"]["ops"] == 512, ph["ops"]["write"]["ops"]
assert ph["ops"]["write"]["bytes"] == 2 * 1048576, ph["ops"]["write"]["bytes"]
P
echo "ok: $nfiles files installed; the copied tree ran 2 agents x 1 MiB (512 writes of 4 KiB)"
