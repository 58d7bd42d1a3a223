# shellcheck shell=bash
# tests/nfs_server.sh: a throw-away NFS server for integration tests.
# Source it from bash, then:
#   nfs_server_start DIR   export DIR over NFSv3 and NFSv4 on 127.0.0.1
#                          (or on NFS_BIND_ADDR, an IPv4 address the test
#                          made, e.g. the root end of its veth, so an agent
#                          in a network namespace can reach the server)
#   nfs_server_restart     stop and start ganesha again on the same ports
#   nfs_server_stop        stop exactly what nfs_server_start started
# After a successful start: NFS_URL3, NFS_URL4 (libnfs URLs), NFS_PID,
# NFS_PORT, NFS_MOUNT_PORT, NFS_SERVER_DIR (temp dir with config and log).
# NFS_BIND_ADDR (optional, default 127.0.0.1): the IPv4 address ganesha
# binds and the URLs name, e.g. the root side of a veth so that an agent in
# a test's network namespace reaches the server over a shaped link.
# NFS_EXPORT_EXTRA (optional): more settings for the EXPORT block, e.g.
# "MaxRead = 16384; MaxWrite = 16384;", read when nfs_server_start or
# nfs_server_restart writes the config; so the same export (same URL)
# can be served configured one way, then another.  One server per shell: to
# run two at once, start each in its own subshell.
#
# Why nfs-ganesha: it is a user-space server, so tests need no kernel nfsd,
# no exports(5) edits and no mounts; one instance per test, on its own ports.
# Ports are explicit (nfsport/mountport in the URLs) because every ganesha
# instance registers with the one rpcbind and they overwrite each other's
# registrations; with explicit ports libnfs never asks rpcbind.  ganesha
# still needs rpcbind running or it exits at start, so we start rpcbind when
# it is not running and remember that, to stop only what we started.
# Functions return non-zero on failure (never exit: the caller is a test).

_NFS_RPCBIND_PID=""        # set only if we started rpcbind
_NFS_EXPORT_DIR=""

_nfs_addr() { echo "${NFS_BIND_ADDR:-127.0.0.1}"; }

# Two distinct free TCP ports on the server's address (the kernel picks them).
_nfs_free_ports() {
  python3 - "$(_nfs_addr)" <<'EOF'
import socket, sys
socks = []
for _ in range(2):
    s = socket.socket()
    s.bind((sys.argv[1], 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

_nfs_port_listens() {
  python3 - "$1" "$(_nfs_addr)" <<'EOF'
import socket, sys
s = socket.socket()
s.settimeout(0.5)
try:
    s.connect((sys.argv[2], int(sys.argv[1])))
except OSError:
    sys.exit(1)
EOF
}

_nfs_rpcbind_answers() {
  rpcinfo -p 127.0.0.1 >/dev/null 2>&1
}

_nfs_start_rpcbind() {
  # Ask rpcbind itself rather than look for the process: a killed rpcbind
  # can linger as a zombie under an init that does not reap.
  if _nfs_rpcbind_answers; then
    return 0
  fi
  mkdir -p /run/rpcbind
  # -f: stay in the foreground, so it is our child with a pid we know.
  rpcbind -f </dev/null >/dev/null 2>&1 &
  _NFS_RPCBIND_PID=$!
  for _ in $(seq 1 50); do
    _nfs_rpcbind_answers && return 0
    kill -0 "$_NFS_RPCBIND_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "nfs_server: rpcbind did not come up" >&2
  kill -TERM "$_NFS_RPCBIND_PID" 2>/dev/null || true
  wait "$_NFS_RPCBIND_PID" 2>/dev/null || true
  _NFS_RPCBIND_PID=""
  return 1
}

_nfs_write_config() {
  cat >"$NFS_SERVER_DIR/ganesha.conf" <<EOF
NFS_CORE_PARAM {
    Bind_addr = $(_nfs_addr);
    NFS_Port = $NFS_PORT;
    MNT_Port = $NFS_MOUNT_PORT;
    Protocols = 3, 4;
    Enable_NLM = false;
    Enable_RQUOTA = false;
}
NFSV4 {
    Graceless = true;
    RecoveryRoot = "$NFS_SERVER_DIR/recovery";
}
EXPORT_DEFAULTS {
    Access_Type = RW;
}
EXPORT {
    Export_Id = 1;
    Path = "$_NFS_EXPORT_DIR";
    Pseudo = /nfstorm;
    Access_Type = RW;
    Squash = No_Root_Squash;
    Protocols = 3, 4;
    Transports = TCP;
    SecType = sys;
    FSAL { Name = VFS; }
    ${NFS_EXPORT_EXTRA:-}
}
EOF
}

# Start ganesha with the current config and wait until it serves NFSv3.
_nfs_launch() {
  local log="$NFS_SERVER_DIR/ganesha.log" pidfile="$NFS_SERVER_DIR/ganesha.pid"
  rm -f "$pidfile"
  ganesha.nfsd -F -f "$NFS_SERVER_DIR/ganesha.conf" -L "$log" -p "$pidfile" \
    -N NIV_WARN </dev/null >>"$NFS_SERVER_DIR/ganesha.out" 2>&1 9>&- &
  NFS_PID=$!
  for _ in $(seq 1 200); do
    if ! kill -0 "$NFS_PID" 2>/dev/null; then
      echo "nfs_server: ganesha.nfsd exited at start; log:" >&2
      tail -n 20 "$log" "$NFS_SERVER_DIR/ganesha.out" >&2 2>/dev/null
      NFS_PID=""
      return 1
    fi
    if _nfs_port_listens "$NFS_PORT" && nfs-ls "$NFS_URL3" >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.1
  done
  echo "nfs_server: ganesha.nfsd not serving $NFS_URL3 after 20 s; log:" >&2
  tail -n 20 "$log" >&2 2>/dev/null
  _nfs_kill_ganesha
  return 1
}

_nfs_kill_ganesha() {
  [ -n "${NFS_PID:-}" ] || return 0
  kill -TERM "$NFS_PID" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$NFS_PID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$NFS_PID" 2>/dev/null; then
    kill -KILL "$NFS_PID" 2>/dev/null || true
  fi
  wait "$NFS_PID" 2>/dev/null || true
  NFS_PID=""
}

nfs_server_start() {
  local dir
  if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: nfs_server_start EXISTING_DIR" >&2
    return 2
  fi
  if ! command -v ganesha.nfsd >/dev/null 2>&1; then
    echo "nfs_server: ganesha.nfsd is not installed" >&2
    return 1
  fi
  dir=$(cd "$1" && pwd -P)
  _NFS_EXPORT_DIR=$dir
  NFS_SERVER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/nfstorm-ganesha.XXXXXX")
  mkdir -p "$NFS_SERVER_DIR/recovery"
  read -r NFS_PORT NFS_MOUNT_PORT < <(_nfs_free_ports)
  NFS_URL3="nfs://$(_nfs_addr)$dir?nfsport=$NFS_PORT&mountport=$NFS_MOUNT_PORT"
  NFS_URL4="nfs://$(_nfs_addr)/nfstorm?version=4&nfsport=$NFS_PORT"
  export NFS_URL3 NFS_URL4 NFS_PORT NFS_MOUNT_PORT NFS_SERVER_DIR
  _nfs_start_rpcbind || return 1
  _nfs_write_config
  _nfs_launch_locked || return 1
  export NFS_PID
}

# ganesha registers its programs with the one rpcbind at start and exits
# when a registration fails; two tests starting ganesha at the same instant
# (the suite runs two at a time) were seen to collide there ("Cannot
# register NFS V3 on UDP").  So starts are serialised with a lock, and a
# start that still dies at once is tried again (up to three times).  The
# lock's descriptor is closed for ganesha itself (9>&- in _nfs_launch): a
# server that inherited it would hold the lock for its whole life and the
# next test's start would wait out flock's 60 s.
_nfs_launch_locked() {
  local lock="${TMPDIR:-/tmp}/nfstorm-ganesha-start.lock" try rc=1
  for try in 1 2 3; do
    if command -v flock >/dev/null 2>&1; then
      { flock -w 60 9 || true; _nfs_launch; rc=$?; } 9>"$lock"
    else
      _nfs_launch; rc=$?
    fi
    [ $rc -eq 0 ] && return 0
    [ $try -lt 3 ] && echo "nfs_server: start $try failed; trying again" >&2 && sleep 0.5
  done
  return $rc
}

nfs_server_restart() {
  if [ -z "${NFS_SERVER_DIR:-}" ]; then
    echo "nfs_server_restart: no server started" >&2
    return 1
  fi
  _nfs_kill_ganesha
  _nfs_write_config       # picks up a changed NFS_EXPORT_EXTRA
  # Same ports: clients reconnect to where they were.  ganesha binds with
  # SO_REUSEADDR, so TIME_WAIT connections on the port do not block it.
  _nfs_launch_locked || return 1
  export NFS_PID
}

nfs_server_stop() {
  _nfs_kill_ganesha
  if [ -n "$_NFS_RPCBIND_PID" ]; then
    kill -TERM "$_NFS_RPCBIND_PID" 2>/dev/null || true
    wait "$_NFS_RPCBIND_PID" 2>/dev/null || true
    _NFS_RPCBIND_PID=""
  fi
  if [ -n "${NFS_SERVER_DIR:-}" ]; then
    rm -rf "$NFS_SERVER_DIR"
    NFS_SERVER_DIR=""
  fi
}
