#!/usr/bin/env bash
# Issue 22 item 3, sizes as fio 3.33 reads them: kb_base=1000 (4k = 4000
# bytes, 4KiB = 4096, kb_base=1024 silent), size=N% of the existing file
# (whole blocks, no more than past the offset) and no size= when
# filename_format/nrfiles name files that exist.  Each job file of
# tests/fio-jobs is run by nfstorm on a local agent and, where fio is
# installed, by fio: every job's op count and bytes are the numbers fio
# 3.33 gave (written below) and the same as fio's here.  A missing file is
# refused naming it.
source "$(dirname "$0")/lib.sh"
want="kb-base si write 250 1000000
kb-base iec write 244 999424
kb-base binary write 256 1048576
size-percent lay write 256 1048576
size-percent half read 128 524288
size-percent tail read 64 262144
size-from-files lay write 512 2097152
size-from-files reread read 512 2097152"
echo "$want" >"$T/want"
for f in kb-base size-percent size-from-files; do
  mkdir -p "$T/ns.$f"
  (cd "$T/ns.$f" && timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/$f.ns.json" \
     "$ROOT/tests/fio-jobs/$f.fio") >"$T/out" 2>&1 || fail "$f: nfstorm: $(tail -n2 "$T/out")"
  grep -q "kb_base" "$T/out" && fail "$f: kb_base warned: $(grep kb_base "$T/out")"
  if command -v fio >/dev/null; then
    mkdir -p "$T/fio.$f"
    (cd "$T/fio.$f" && timeout 60 fio --output-format=json --output="$T/$f.fio.json" \
       "$ROOT/tests/fio-jobs/$f.fio") >"$T/out" 2>&1 || fail "$f: fio: $(tail -n2 "$T/out")"
  fi
done
py "$T/want" "$T" <<'PY'
import json, os, sys
T = sys.argv[2]
for line in open(sys.argv[1]):
    f, job, op, ops, nbytes = line.split()
    ns = {p["name"]: p for p in json.load(open(f"{T}/{f}.ns.json"))["phases"]}[job]
    assert ns["verdict"] == "ok", (f, job, ns["reasons"])
    got = (ns["ops"][op]["ops"], ns["ops"][op]["bytes"])
    assert got == (int(ops), int(nbytes)), (f, job, op, "nfstorm", got, "want", ops, nbytes)
    other = "write" if op == "read" else "read"
    assert ns["ops"].get(other, {"ops": 0})["ops"] == 0, (f, job, ns["ops"])
    if os.path.exists(f"{T}/{f}.fio.json"):
        fj = {j["jobname"]: j for j in json.load(open(f"{T}/{f}.fio.json"))["jobs"]}[job]
        assert (fj[op]["total_ios"], fj[op]["io_bytes"]) == got, (f, job, "fio", fj[op]["total_ios"],
                                                                   fj[op]["io_bytes"], "nfstorm", got)
PY
# the command line: fio reads kb_base from where it stands (after --bs it
# changes nothing), so does nfstorm
cli() {  # cli WANT_OPS ARGS...: null-engine reads, fio's count where fio is here
  local want=$1; shift
  timeout 30 "$NFSTORM" run --local 1 --quiet --output-format=json --output "$T/cli.json" "$@" >"$T/out" 2>&1 \
    || fail "cli $*: $(tail -n2 "$T/out")"
  got=$(py "$T/cli.json" <<<'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["total_ios"])')
  [ "$got" = "$want" ] || fail "cli $*: nfstorm $got ops, want $want"
  if command -v fio >/dev/null; then
    (cd "$T" && timeout 30 fio "$@" --output-format=json --output="$T/cli.fio.json") >"$T/out" 2>&1 || fail "fio $*"
    f=$(py "$T/cli.fio.json" <<<'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["total_ios"])')
    [ "$f" = "$want" ] || fail "cli $*: fio $f ops, want $want"
  fi
}
cli 256 --name=x --ioengine=null --size=1m --bs=4k --kb_base=1000
cli 250 --kb_base=1000 --name=x --ioengine=null --size=1m --bs=4k
cli 250 --name=x --kb_base=1000 --ioengine=null --size=1m --bs=4k
"$NFSTORM" run --dry-run "$ROOT/tests/fio-jobs/size-percent.fio" >"$T/dry" 2>&1 || fail "dry run: $(tail -n2 "$T/dry")"
grep -q "job half: rw=read bs=4KiB size=(50% of the existing file's, 1 file) " "$T/dry" || fail "dry run: $(grep half "$T/dry")"
# a percentage of a file that is not there: refused, naming the file
cd "$T" || fail "cd"
timeout 30 "$NFSTORM" run --local 1 --quiet --name=x --filename=nope.dat --size=50% --rw=read >"$T/out" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "size=50% of a missing file ran"
grep -q "job 'x': size=50% and a file to size it from is missing: .*nope.dat" "$T/out" || fail "$(tail -n3 "$T/out")"
expect_fail pct "^nfstorm: --size: bad value '0%' \(want a percentage from 1% to 100%\)$" \
  "$NFSTORM" run --parse-only --name=x --size=0% --filename=f
expect_fail kb "^nfstorm: --kb_base: bad value '1001' \(want 1000 or 1024\)$" \
  "$NFSTORM" run --parse-only --name=x --size=1m --kb_base=1001
echo "sizes as fio: kb_base, size=N%, sized by existing files"
