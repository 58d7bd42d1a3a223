#!/usr/bin/env bash
# The agent's loop thread does no file work: with unlink=1 on 6000 files
# and every unlink taking 2 ms (an LD_PRELOAD shim; 12 s in all), the
# heartbeats go on, the coordinator (agent timeout 3 s) never loses the
# agent and exits 0, and a coordinator that connects while the agent still
# deletes files is served when it is done, never told "busy" (issue 9,
# defect 4).
source "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || skip "no C compiler for the slow-unlink shim"
D=$T/d; mkdir -p "$D"
cat >"$T/slow.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <time.h>
/* unlink and unlinkat under the test directory take 2 ms each */
static void slow(const char *p)
{
    const char *dir = getenv("SLOW_UNLINK_DIR");
    struct timespec ts = { 0, 2000000 };
    if (dir && p && strncmp(p, dir, strlen(dir)) == 0)
        nanosleep(&ts, NULL);
}
int unlink(const char *p)
{
    static int (*real)(const char *);
    if (!real)
        real = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    slow(p);
    return real(p);
}
/* unlinkat on a directory fd (the agent's confined unlink): its name is
 * relative, so every one is slowed; this agent unlinks nothing else */
int unlinkat(int fd, const char *p, int flags)
{
    static int (*real)(int, const char *, int);
    struct timespec ts = { 0, 2000000 };
    if (!real)
        real = (int (*)(int, const char *, int))dlsym(RTLD_NEXT, "unlinkat");
    if (getenv("SLOW_UNLINK_DIR"))
        nanosleep(&ts, NULL);
    return real(fd, p, flags);
}
C
sed -i '1a #include <stdlib.h>' "$T/slow.c"
cc -shared -fPIC -o "$T/slow.so" "$T/slow.c" -ldl || skip "cannot build the shim"
# (an ASan-built agent wants its runtime first in the library list: the shim
# comes before it here, which is harmless, so the order check is switched off)
SLOW_UNLINK_DIR=$D LD_PRELOAD=$T/slow.so ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
  start_agent "$D"

SECONDS=0
timeout 120 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --agent-timeout 3s --json "$T/r.json" \
  --name=many --rw=write --bs=4k --filesize=4k --nrfiles=6000 --size=24000k --unlink=1 \
  --directory="$D" >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "unlink of 6000 files: exit $rc: $(tail -n2 "$T/out")"
grep -qi "lost" "$T/out" && fail "agent reported lost while unlinking: $(grep -i lost "$T/out" | head -1)"
py "$T/r.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
assert ph["ops"]["write"]["ops"] == 6000, ph["ops"]["write"]["ops"]
PY
# the agent is still deleting (about 12 s): the next coordinator waits, then is served
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --agent-timeout 3s --json "$T/n.json" --name=next \
  --rw=write --bs=4k --size=1m --filename="$D/n" >"$T/next" 2>&1 \
  || fail "the run after it was not served: $(tail -n2 "$T/next")"
left=$(find "$D" -name 'many.*' | wc -l)
[ "$left" -eq 0 ] || fail "$left of 6000 files not deleted"
[ $SECONDS -ge 10 ] || fail "the shim did not slow unlink down (${SECONDS}s): the test proves nothing"
echo "6000 slow unlinks off the loop thread: exit 0, no agent lost, next run served (${SECONDS}s)"
