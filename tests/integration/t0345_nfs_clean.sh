#!/usr/bin/env bash
# nfstorm clean removes an ioengine=nfs job's files through libnfs on the
# job's server (nfs-ganesha here), beneath the agents' --allow-nfs, and only
# what the plan names: a regular file of each agent's name goes, a symlink
# and another file beside them stay; an agent whose --allow-nfs does not
# cover the URL refuses the clean; a clean that matched nothing names the
# agent indices whose files are there.  (It once skipped every nfs job: "its
# files are on nfs://..., not removed here".)
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
E=$T/export; mkdir -p "$E"; chmod 777 "$E"
nfs_server_start "$E" || fail "NFS server did not start"
job=(--name=n --ioengine=nfs "--nfs_url=$NFS_URL3" --rw=write --bs=4k --size=64k "--filename=f.\${agent}")
timeout 60 "$NFSTORM" run --local 2 --quiet "${job[@]}" >"$T/r" 2>&1 || fail "nfs run: $(tail -n 3 "$T/r")"
[ "$(ls "$E" | tr '\n' ' ')" = "f.0 f.1 " ] || fail "the run wrote: $(ls "$E")"
echo keep >"$E/other"; ln -s other "$E/f.2"

timeout 60 "$NFSTORM" clean --local 3 "${job[@]}" >"$T/c" 2>&1 || fail "clean: exit $?: $(cat "$T/c")"
grep -q "^clean: removed 2 files, 128KiB in all$" "$T/c" || fail "clean total: $(cat "$T/c")"
grep -q "^clean: agent 2 (.*): removed 0 files, 0B (.*f\.2: not a regular file, left alone)$" "$T/c" ||
  fail "the symlink's note: $(cat "$T/c")"
[ "$(ls "$E" | tr '\n' ' ')" = "f.2 other " ] || fail "left in the export: $(ls "$E")"

# nothing of these agents' names there, another index's is: it says so
rm -f "$E/f.2"; echo x >"$E/f.5"
timeout 60 "$NFSTORM" clean --local 2 "${job[@]}" >"$T/c1" 2>&1 || fail "clean (nothing): exit $?: $(cat "$T/c1")"
grep -q "^clean: nothing matched: the plan's names expand to agents 0-1; the files there are named for agent 5 " "$T/c1" ||
  fail "no reason for an empty nfs clean: $(cat "$T/c1")"
[ -f "$E/f.5" ] || fail "a clean that matched nothing removed f.5"

# beneath --allow-nfs only: an agent allowed another export refuses
timeout 60 "$NFSTORM" run --local 1 --quiet "${job[@]}" >"$T/r2" 2>&1 || fail "nfs run 2: $(tail -n 3 "$T/r2")"
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
"$AGENT" --listen 127.0.0.1:$port --insecure --allow "$T" --allow-nfs "nfs://127.0.0.1/elsewhere" >"$T/ag.log" 2>&1 &
PIDS+=($!)
wait_grep "$T/ag.log" "listening" 10 || fail "agent did not start: $(cat "$T/ag.log")"
timeout 60 "$NFSTORM" clean --agents 127.0.0.1:$port "${job[@]}" >"$T/c2" 2>&1 && fail "a clean outside --allow-nfs succeeded: $(cat "$T/c2")"
grep -q "allow-nfs" "$T/c2" || fail "no --allow-nfs refusal: $(cat "$T/c2")"
[ -f "$E/f.0" ] || fail "a refused clean removed f.0"
exit 0
