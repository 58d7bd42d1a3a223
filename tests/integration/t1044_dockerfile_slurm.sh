#!/usr/bin/env bash
# deploy/docker/Dockerfile (no container engine here): the build context its
# COPY takes builds both binaries, the image installs the package make
# deb builds, and the paths the k8s manifests run are the package's.
# deploy/slurm/nfstorm.sbatch run outside Slurm with a stand-in srun and
# coordinator that record their arguments: the agents' step and the run get
# the options the job's parameters say, the agents are stopped at the end,
# the job's status is the run's.  (Running it on a real single-node Slurm is
# another test's job.)
. "$(dirname "$0")/lib.sh"
DF=$ROOT/deploy/docker/Dockerfile

# ---- Dockerfile ----
# The build context the Dockerfile's COPY lines take, made as the builder
# makes it (the tracked tree less Dockerfile.dockerignore's patterns), and
# the binaries built in it: a COPY list that leaves a folder out fails here
# (it once left net/ out). The image's own build is `make deb`, which builds
# libnfs from Debian's source; here the tree's deps/ (that libnfs) is lent.
CTX=$T/context
python3 - "$ROOT" "$DF" "$CTX" <<'PY' || fail "cannot assemble the Dockerfile's build context"
import fnmatch, os, shutil, subprocess, sys
root, df, ctx = sys.argv[1:]
ign = []
for line in open(df + ".dockerignore"):
    line = line.strip()
    if line and not line.startswith("#"):
        ign.append(line.rstrip("/"))
def ignored(path):
    parts = path.split("/")
    return any(fnmatch.fnmatch("/".join(parts[:k]), pat) for pat in ign for k in range(1, len(parts) + 1))
tracked = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
tracked = [t for t in tracked.decode().split("\0") if t]
srcs = []
for line in open(df):
    w = line.split()
    if not w or w[0] != "COPY" or any(x.startswith("--from") for x in w):
        continue
    srcs += w[1:-1]
assert srcs, "no COPY line"
n = 0
for src in srcs:
    src = os.path.normpath(src)
    for t in tracked:
        if (src == "." or t == src or t.startswith(src + "/")) and not ignored(t):
            os.makedirs(os.path.join(ctx, os.path.dirname(t)), exist_ok=True)
            shutil.copy2(os.path.join(root, t), os.path.join(ctx, t), follow_symlinks=False)
            n += 1
print("context: %d files" % n)
PY
for d in build bin deps .git; do
  [ -e "$CTX/$d" ] && fail "the build context holds $d (the .dockerignore should leave it out)"
done
[ -d "$ROOT/deps/libnfs" ] && ln -s "$ROOT/deps" "$CTX/deps"
( cd "$CTX" && make --no-print-directory -j2 OPT=-O0 all >"$T/ctx-build.log" 2>&1 ) ||
  fail "the Dockerfile's build context does not build: $(grep -m3 -E 'error|No such|No rule' "$T/ctx-build.log")"
[ -x "$CTX/bin/nfstorm" ] && [ -x "$CTX/bin/nfstorm-agent" ] || fail "the context's build made no binaries"
n=$(find "$CTX" -path "$CTX/deps" -prune -o -type f -print | wc -l)
grep -q '^FROM debian:12-slim AS build$' "$DF" || fail "build stage is not Debian 12"
[ "$(grep -c '^FROM debian:12-slim' "$DF")" -eq 2 ] || fail "runtime stage is not Debian 12"
grep -q 'make deb' "$DF" || fail "the image is not built with make deb"
grep -q '^COPY --from=build /src/build/deb/nfstorm_\*.deb /tmp/$' "$DF" || fail "the image does not take make deb's package"
grep -q "^DEB_DIR  := \$(CURDIR)/build/deb$" "$ROOT/Makefile" || fail "make deb no longer writes build/deb"
grep -q '^CMD \["/usr/bin/nfstorm-agent"\]$' "$DF" || fail "CMD is not the installed agent"
# Every binary the manifests run is where the package installs it.
for b in $(grep -ho '/usr/bin/nfstorm[a-z-]*' "$ROOT"/deploy/k8s/*.yaml "$DF" | sort -u); do
  case "$b" in /usr/bin/nfstorm|/usr/bin/nfstorm-agent) ;; *) fail "unknown binary $b" ;; esac
  grep -q "install -m 0755 \$(INST_DIR)/nfstorm \$(INST_DIR)/nfstorm-agent \$(DESTDIR)\$(PREFIX)/bin/" "$ROOT/Makefile" \
    || fail "make install no longer puts the binaries in PREFIX/bin"
done
grep -q 'PREFIX=/usr' "$ROOT/debian/rules" || fail "the package does not install with PREFIX=/usr"

# ---- Slurm ----
SB=$ROOT/deploy/slurm/nfstorm.sbatch
bash -n "$SB" || fail "nfstorm.sbatch: syntax"
grep -q '^#SBATCH --ntasks-per-node=1$' "$SB" || fail "sbatch header"
mkdir -p "$T/bin" "$T/fake"
cat >"$T/bin/srun" <<'S'
#!/bin/bash
# stand-in srun: records its arguments, runs until SIGTERM, records that
printf '%s\n' "$*" >"$FAKE/srun.args"
trap 'echo stopped >"$FAKE/srun.stopped"; exit 0' TERM
while :; do sleep 0.1; done
S
cat >"$T/fake/nfstorm" <<'S'
#!/bin/bash
# stand-in coordinator: records its arguments; exit status 3 (partial)
for _ in $(seq 50); do [ -f "$FAKE/srun.args" ] && break; sleep 0.1; done
printf '%s\n' "$*" >"$FAKE/run.args"
exit 3
S
chmod +x "$T/bin/srun" "$T/fake/nfstorm"
export FAKE=$T
( cd "$T" && PATH=$T/bin:$PATH SLURM_NNODES=3 SLURM_JOB_ID=42 NFSTORM_PLAN=/p/plan.fio \
  NFSTORM_SECRET_FILE=/s/secret NFSTORM_ALLOW=/mnt/a,/mnt/b NFSTORM_HOST=batch1 NFSTORM_AGENTS_PER_NODE=2 \
  NFSTORM_BIN=$T/fake NFSTORM_EXTRA_AGENT_ARGS='--max-threads 8' NFSTORM_EXTRA_RUN_ARGS='--target efs' \
  timeout 20 bash "$SB" >"$T/job.out" 2>&1 ); rc=$?
[ $rc -eq 3 ] || fail "the job's status is $rc, not the run's 3: $(cat "$T/job.out")"
want_srun="--nodes=3 --ntasks-per-node=2 --kill-on-bad-exit=0 $T/fake/nfstorm-agent --coordinator batch1:7879 --secret-file /s/secret --allow /mnt/a --allow /mnt/b --label slurm --max-threads 8"
[ "$(cat "$T/srun.args")" = "$want_srun" ] || fail "srun got: $(cat "$T/srun.args")"
want_run="run /p/plan.fio --listen 0.0.0.0:7879 --expect 6 --expect-timeout 2m --secret-file /s/secret --quiet --json nfstorm-42.json --html nfstorm-42.html --target efs"
[ "$(cat "$T/run.args")" = "$want_run" ] || fail "nfstorm got: $(cat "$T/run.args")"
[ "$(cat "$T/srun.stopped" 2>/dev/null)" = stopped ] || fail "the agents' step was not stopped"
grep -q '^nfstorm: run finished with status 3; results in nfstorm-42.json, nfstorm-42.html$' "$T/job.out" \
  || fail "job output: $(cat "$T/job.out")"
# Without a plan, or outside an allocation: a clear line, non-zero.
( cd "$T" && SLURM_NNODES=1 bash "$SB" >"$T/noplan.out" 2>&1 ) && fail "ran without NFSTORM_PLAN"
grep -q 'set NFSTORM_PLAN to the plan file' "$T/noplan.out" || fail "no-plan message: $(cat "$T/noplan.out")"
( cd "$T" && env -u SLURM_NNODES NFSTORM_PLAN=x bash "$SB" >"$T/noslurm.out" 2>&1 ) && fail "ran outside Slurm"
grep -q 'not inside a Slurm allocation' "$T/noslurm.out" || fail "no-Slurm message: $(cat "$T/noslurm.out")"
echo "ok: the Dockerfile's build context ($n files) builds both binaries; sbatch passes 3 nodes x 2 agents to srun and --expect 6 to the run"
