#!/usr/bin/env bash
# faultfs itself (tests/faultfs/faultfs.c): each fault kind really happens,
# through the mount, as plain pwrite/pread from python see it, and each
# injected fault is logged with the file, offset and length it affected;
# a clean file is untouched; rules select by file name, range, skip, every
# and count; the control file adds and clears rules; a bad rule is refused.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
out=$("$FAULTFS" --rule "melt,off=0" "$T" "$T" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "unknown fault kind 'melt'" <<<"$out" || fail "bad rule: exit $rc: $out"
out=$("$FAULTFS" --rule "drop,off=x" "$T" "$T" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "off=x is not a number" <<<"$out" || fail "bad value: exit $rc: $out"
faultfs_mount "drop,file=d,off=4096,len=4096,skip=1,count=1" \
  "drop,file=e,every=3" \
  "stale,file=s,skip=1,ms=300" \
  "wcorrupt,file=c,off=8192,len=4096,at=100" \
  "rcorrupt,file=r,off=0,len=4096,at=7" \
  "torn,file=t,skip=1,keep=1024" \
  "zeroes,file=z,off=512,len=1024" \
  "drop,file=w.1.*" \
  "torn,file=dd,keep=4096"
py "$FFS_M" "$FFS_B" "$FFS_LOG" <<'PY'
import os, sys, time
m, b, logp = sys.argv[1:4]
A, B = b"A" * 16384, b"B" * 16384
def wr(name, data, off=0):
    fd = os.open(os.path.join(m, name), os.O_RDWR | os.O_CREAT, 0o644)
    assert os.pwrite(fd, data, off) == len(data)
    os.close(fd)
def rd(name, n, off=0, where=m):
    fd = os.open(os.path.join(where, name), os.O_RDONLY)
    d = os.pread(fd, n, off); os.close(fd); return d
def log():
    out = []
    for l in open(logp):
        f = dict(kv.split("=", 1) for kv in l.split())
        out.append((f["kind"], f["file"], int(f["off"]), int(f["len"])))
    return out
# clean: a file no rule names is stored and read back as written
wr("clean", A); assert rd("clean", 16384) == A and rd("clean", 16384, where=b) == A
wr("w.0.0.0", A); assert rd("w.0.0.0", 16384, where=b) == A
assert log() == [], log()
# drop: the second write over [4096, 8192) loses that range only
wr("d", A); wr("d", B)
want = B[:4096] + A[4096:8192] + B[8192:]
assert rd("d", 16384, where=b) == want and rd("d", 16384) == want
assert log() == [("drop", "d", 4096, 4096)], log()
wr("d", B); assert rd("d", 16384, where=b) == B      # count=1: once only
# every=3: of nine 4 KiB writes, the 3rd, 6th and 9th are dropped
for i in range(9): wr("e", bytes([65 + i]) * 4096, i * 4096)
got = rd("e", 9 * 4096, where=b)
for i in range(9):
    blk = got[i * 4096:(i + 1) * 4096]
    assert blk == (b"\0" * 4096 if i % 3 == 2 else bytes([65 + i]) * 4096), i
# targeting by name: agent 1's file is dropped, agent 0's was not
wr("w.1.0.0", A); assert rd("w.1.0.0", 16384, where=b) == b"\0" * 16384
# stale: the second write is invisible for 300 ms, then visible
wr("s", A); wr("s", B); t0 = time.monotonic()
assert rd("s", 16384, where=b) == B and rd("s", 16384) == A
while rd("s", 16384) != B: time.sleep(0.005)
lag = time.monotonic() - t0
assert 0.25 <= lag <= 0.8, lag
# wcorrupt: stored with the byte at 8192+100 flipped
wr("c", A); got = rd("c", 16384, where=b)
assert got[8292] == ord("A") ^ 0xff and got[:8292] + got[8293:] == A[:-1]
# rcorrupt: stored intact, every read of [0, 4096) has byte 7 flipped
wr("r", A); assert rd("r", 16384, where=b) == A
for _ in range(2):
    got = rd("r", 16384); assert got[7] == ord("A") ^ 0xff and got[8:] == A[8:]
# torn: the second write keeps only its first 1024 bytes
wr("t", A[:8192]); wr("t", B[:8192])
assert rd("t", 8192, where=b) == B[:1024] + A[1024:8192]
# zeroes: reads see zeroes in [512, 1536), the file holds A
wr("z", A); got = rd("z", 4096)
assert got == A[:512] + b"\0" * 1024 + A[1536:4096] and rd("z", 4096, where=b) == A[:4096]
L = log()
want = [("drop", "d", 4096, 4096)] + [("drop", "e", i * 4096, 4096) for i in (2, 5, 8)] + [
    ("drop", "w.1.0.0", 0, 16384), ("stale", "s", 0, 16384), ("stale-read", "s", 0, 16384),
    ("wcorrupt", "c", 8292, 1), ("rcorrupt", "r", 7, 1), ("rcorrupt", "r", 7, 1),
    ("torn", "t", 1024, 7168), ("zeroes", "z", 512, 1024)]
assert L == want, L
PY
# with dd: one 8 KiB write torn after 4 KiB leaves the rest a hole
head -c 8192 /dev/urandom >"$T/src"
dd if="$T/src" of="$FFS_M/dd" bs=8k count=1 status=none || fail "dd write through faultfs failed"
cmp -s -n 4096 "$T/src" "$FFS_B/dd" || fail "torn write: the first 4 KiB were not stored"
[ "$(stat -c %s "$FFS_B/dd")" -eq 8192 ] || fail "torn write: size $(stat -c %s "$FFS_B/dd"), expected 8192"
[ "$(tail -c 4096 "$FFS_B/dd" | tr -d '\0' | wc -c)" -eq 0 ] || fail "torn write stored its second half"
grep -q '^kind=torn file=dd off=4096 len=4096 io_off=0 io_len=8192 ' "$FFS_LOG" || fail "torn write not logged"
# the control file: clear every rule, then add one
faultfs_ctl clear
py "$FFS_M" <<'PY'
import os, sys
p = os.path.join(sys.argv[1], "d")
fd = os.open(p, os.O_RDWR); os.pwrite(fd, b"C" * 16384, 0); os.close(fd)
assert open(p, "rb").read() == b"C" * 16384
PY
faultfs_ctl "zeroes,file=d,off=0,len=16"
[ "$(head -c 16 "$FFS_M/d" | tr -d '\0' | wc -c)" -eq 0 ] || fail "control-file rule not applied"
[ "$(head -c 17 "$FFS_M/d" | tail -c 1)" = C ] || fail "zeroes beyond the rule's range"
printf 'bogus\n' >"$FFS_M/.faultfs" 2>/dev/null && fail "bad control line accepted"
ls -a "$FFS_M" | grep -q faultfs && fail "control file listed by readdir"
faultfs_umount
grep -q " $FFS_M " /proc/mounts && fail "still mounted after fusermount3 -u"
[ "$FFS_RC" -eq 0 ] || fail "faultfs exited $FFS_RC: $(tail -n 5 "$T/faultfs.err")"
echo "faultfs: drop, stale (lag 300 ms), wcorrupt, rcorrupt, torn, zeroes happen and are logged; control file works"
