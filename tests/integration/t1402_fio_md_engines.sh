#!/usr/bin/env bash
# fio's metadata engines on the kernel-mount family: a job file in fio's
# habit (ioengine=filecreate | filestat | filedelete, nrfiles, filesize in
# [global]) runs as rw=metadata jobs of psync, 2 local agents x 2 threads:
# filecreate = 1 create per file, of empty files (0 bytes, as fio's);
# filestat = the files made (filesize each) then 1 stat per file;
# filedelete = made, then 1 unlink per file.  Exact counts per op type, no
# errors, merge = sum of agents; the directory is as empty afterwards.
# ioengine=windowsaio is refused at parse time (file:line, key, the closest
# engines), exit 2.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/md.fio" <<EOF2
[global]
directory=$D
filesize=4k
numjobs=2

[mk]
ioengine=filecreate
nrfiles=40

[st]
stonewall
ioengine=filestat
nrfiles=30

[rm]
stonewall
ioengine=filedelete
nrfiles=20
EOF2
timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/md.json" "$T/md.fio" >"$T/out" 2>&1 \
  || fail "run: $(tail -n3 "$T/out")"
py "$T/md.json" <<'PY'
import json, sys
phases = json.load(open(sys.argv[1]))["phases"]
want = [("mk", {"create": (160, 0)}),
        ("st", {"create": (120, 120 * 4096), "stat": (120, 0)}),
        ("rm", {"create": (80, 80 * 4096), "unlink": (80, 0)})]
assert len(phases) == 3, len(phases)
for ph, (name, ops) in zip(phases, want):
    assert ph["name"] == name and ph["rw"] == "metadata", (ph["name"], ph["rw"])
    got = {k: v for k, v in ph["ops"].items() if v["ops"]}
    assert set(got) == set(ops), (name, sorted(got))
    for op, (n, nbytes) in ops.items():
        o = got[op]
        assert (o["ops"], o["bytes"], o["errors"]) == (n, nbytes, 0), (name, op, o)
        assert o["ops"] == sum(a["ops"][op]["ops"] for a in ph["agents"]), (name, op)
PY
[ -z "$(find "$D" -type f)" ] || fail "files left: $(find "$D" -type f | head -3)"
# the engine folding is visible in --dry-run
"$NFSTORM" run --dry-run "$T/md.fio" >"$T/dry" 2>&1 || fail "dry-run: $(tail -n2 "$T/dry")"
grep -q 'job st: rw=metadata md_ops=create,stat nrfiles=30 filesize=4KiB ioengine=psync' "$T/dry" \
  || fail "dry-run: $(grep 'job st' "$T/dry")"
grep -q 'job mk: rw=metadata md_ops=create nrfiles=40 filesize=0B ioengine=psync' "$T/dry" \
  || fail "dry-run: $(grep 'job mk' "$T/dry")"
printf '[a]\nsize=1m\ndirectory=%s\nioengine=windowsaio\n' "$D" >"$T/aio.fio"
"$NFSTORM" run --local 1 "$T/aio.fio" >"$T/err" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "windowsaio: exit $rc, want 2"
grep -qx "nfstorm: $T/aio.fio:4: bad value for 'ioengine': 'windowsaio' (fio's windowsaio engine is not implemented by nfstorm; use libaio or io_uring)" "$T/err" \
  || fail "windowsaio: $(cat "$T/err")"
echo "filecreate/filestat/filedelete: exact op counts; windowsaio refused"
