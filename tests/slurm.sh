# shellcheck shell=bash
# tests/slurm.sh: a throw-away single-node Slurm cluster for integration tests.
# Source it from bash, then:
#   slurm_start     munged, slurmctld and slurmd on this machine, in a temp dir
#   slurm_stop      stop exactly the daemons slurm_start started
# After a successful start:
#   SLURM_DIR       the temp dir (munge key and socket, slurm.conf, state, logs)
#   SLURM_CONF      exported: srun, sbatch, squeue and sinfo read it
#   SLURM_NODE      the one node (this host's short name), CPUs=2
# slurm_start returns 2 (and says why in SLURM_WHY) when Slurm cannot start
# here (not installed, munged refuses, the node never comes up): tests skip
# on 2 and fail on 1.
#
# Nothing of the machine's is used or changed: the munge key is generated
# in SLURM_DIR (not /etc/munge/munge.key), munged listens on a socket in
# SLURM_DIR (slurm.conf's AuthInfo=socket= points Slurm at it), and Slurm's
# ports are free ones the kernel picked, so other tests' clusters and the
# machine's own (if any) are not disturbed.  munged runs as user munge, as
# it wants (it refuses a key or socket directory others could write);
# slurmctld and slurmd run as root with SlurmUser=root.  No cgroups are
# needed (proctrack/linuxproc, task/none); srun -n N with N > CPUs needs
# --overcommit (-O).
# Functions return non-zero on failure (never exit: the caller is a test).

_SLURM_PIDS=()
SLURM_WHY=""

_slurm_free_ports() {
  python3 - <<'EOF'
import socket
socks = []
for _ in range(2):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

_slurm_why() { SLURM_WHY=$*; echo "slurm: $*" >&2; }

slurm_start() {
  local b
  for b in munged slurmctld slurmd srun sbatch sinfo; do
    command -v "$b" >/dev/null 2>&1 || { _slurm_why "$b is not installed (slurm-wlm, munge: scripts/install-deps.sh)"; return 2; }
  done
  id munge >/dev/null 2>&1 || { _slurm_why "no user munge"; return 2; }
  [ "$(id -u)" -eq 0 ] || { _slurm_why "needs root (munged as user munge, slurmd as root)"; return 2; }
  SLURM_DIR=$(mktemp -d /tmp/nfstorm-slurm.XXXXXX) || return 1
  chmod 755 "$SLURM_DIR"
  SLURM_NODE=$(hostname -s)
  local m=$SLURM_DIR/munge
  mkdir -p "$m" "$SLURM_DIR/state" "$SLURM_DIR/spool"
  dd if=/dev/urandom of="$m/munge.key" bs=1024 count=1 status=none
  chown -R munge:munge "$m"
  chmod 700 "$m"
  chmod 400 "$m/munge.key"
  # -F: stay in the foreground, our child; --force: the temp dir's parent
  # (/tmp) is world-writable, which munged otherwise refuses
  setpriv --reuid=munge --regid=munge --init-groups -- munged -F --force --key-file="$m/munge.key" --socket="$m/munge.socket" \
    --pid-file="$m/munged.pid" --log-file="$m/munged.log" --seed-file="$m/munged.seed" \
    </dev/null >"$SLURM_DIR/munged.out" 2>&1 &
  _SLURM_PIDS+=($!)
  for _ in $(seq 50); do [ -S "$m/munge.socket" ] && break; sleep 0.1; done
  if [ ! -S "$m/munge.socket" ]; then
    _slurm_why "munged did not start: $(tail -2 "$SLURM_DIR/munged.out" "$m/munged.log" 2>/dev/null | tr '\n' ' ')"
    slurm_stop; return 2
  fi
  # the socket directory must be reachable by root-run slurm daemons and srun
  chmod 755 "$m"
  local ports ctld_port d_port
  ports=$(_slurm_free_ports) || { slurm_stop; return 1; }
  ctld_port=${ports% *}; d_port=${ports#* }
  cat >"$SLURM_DIR/slurm.conf" <<EOF
ClusterName=nfstormtest
SlurmctldHost=$SLURM_NODE(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$m/munge.socket
CredType=cred/munge
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool/%n
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
MinJobAge=5
SchedulerType=sched/builtin
NodeName=$SLURM_NODE NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$SLURM_NODE Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
  export SLURM_CONF=$SLURM_DIR/slurm.conf
  # -D: foreground (our children); -i: ignore saved state
  slurmctld -D -i -f "$SLURM_CONF" </dev/null >"$SLURM_DIR/slurmctld.out" 2>&1 &
  _SLURM_PIDS+=($!)
  slurmd -D -f "$SLURM_CONF" </dev/null >"$SLURM_DIR/slurmd.out" 2>&1 &
  _SLURM_PIDS+=($!)
  # up when the node is idle (slurmd registered with slurmctld)
  local state=""
  for _ in $(seq 100); do
    state=$(sinfo -h -n "$SLURM_NODE" -o %T 2>/dev/null)
    case $state in idle*|mixed*|allocated*) return 0 ;; esac
    sleep 0.1
  done
  _slurm_why "the node did not come up (state '${state:-none}'): $(tail -2 "$SLURM_DIR/slurmctld.log" "$SLURM_DIR/slurmd.log" 2>/dev/null | tr '\n' ' ')"
  slurm_stop
  return 2
}

# The slurmstepd processes of this cluster: their environment names our
# slurm.conf (other clusters' and the machine's are not ours to touch).
_slurm_steps() {
  local p
  for p in $(pgrep -x slurmstepd 2>/dev/null); do
    grep -qF "$SLURM_DIR/slurm.conf" "/proc/$p/environ" 2>/dev/null && echo "$p"
  done
}

slurm_stop() {
  local p i steps
  if [ -n "${SLURM_DIR:-}" ] && [ -n "${SLURM_CONF:-}" ]; then
    # jobs first, so their steps end while slurmd is there to end them
    scancel --full --quiet $(squeue -h -o %i 2>/dev/null) 2>/dev/null
    for _ in $(seq 30); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.1; done
  fi
  # slurmd, then slurmctld, then munged
  for ((i = ${#_SLURM_PIDS[@]} - 1; i >= 0; i--)); do
    p=${_SLURM_PIDS[$i]}
    kill "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  _SLURM_PIDS=()
  if [ -n "${SLURM_DIR:-}" ]; then
    for _ in $(seq 30); do steps=$(_slurm_steps); [ -z "$steps" ] && break; sleep 0.1; done
    [ -n "$steps" ] && kill -9 $steps 2>/dev/null
    # a daemon still on its way out may write one more file: try again
    for _ in 1 2 3 4 5; do rm -rf "$SLURM_DIR" 2>/dev/null; [ -e "$SLURM_DIR" ] || break; sleep 0.2; done
  fi
  SLURM_DIR=""
  unset SLURM_CONF
}
