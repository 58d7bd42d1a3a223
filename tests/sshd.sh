# shellcheck shell=bash
# tests/sshd.sh: a throw-away OpenSSH server for integration tests.
# Source it from bash, then:
#   sshd_start            sshd on 127.0.0.1:<free port>, in a temp dir
#   sshd_stop             stop exactly the sshd that sshd_start started
# After a successful start:
#   SSHD_DIR     the temp dir (host key, sshd_config, client key, ssh_config, log)
#   SSHD_PORT    its port
#   SSHD_PID     its pid (sshd -D: our child, never a daemon)
#   SSH_CONFIG   a client config (ssh -F) for the hosts h1..h8, which all
#                reach this sshd as root with a generated key; known_hosts
#                holds its host key, so nothing prompts and nothing is
#                written under ~/.ssh
#   SSHD_LOG     sshd's log (-E)
#
# Nothing of the machine's is touched: not /etc/ssh (sshd_config, host keys
# and authorized keys are all in SSHD_DIR; -f names the config) and not
# ~/.ssh (the client reads only SSH_CONFIG, whose IdentityFile and
# UserKnownHostsFile are in SSHD_DIR).  The one thing outside it is
# /run/sshd, the privilege-separation directory compiled into Debian's
# sshd: created (empty, root-owned) when missing.
# Root login: PermitRootLogin prohibit-password, so the key is the only way
# in.  StrictModes is off because SSHD_DIR lives under /tmp (world-writable).
# Functions return non-zero on failure (never exit: the caller is a test).

SSHD_PID=""

_sshd_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

_sshd_port_listens() {
  python3 - "$1" <<'EOF'
import socket, sys
s = socket.socket()
s.settimeout(0.5)
try:
    s.connect(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
EOF
}

sshd_start() {
  command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || { echo "sshd: openssh-server is not installed (scripts/install-deps.sh)" >&2; return 1; }
  command -v ssh >/dev/null 2>&1 || { echo "sshd: ssh (openssh-client) is not installed" >&2; return 1; }
  SSHD_DIR=$(mktemp -d /tmp/nfstorm-sshd.XXXXXX) || return 1
  chmod 700 "$SSHD_DIR"
  SSHD_PORT=$(_sshd_free_port) || return 1
  SSHD_LOG=$SSHD_DIR/sshd.log
  ssh-keygen -q -t ed25519 -N '' -f "$SSHD_DIR/host_key" </dev/null || return 1
  ssh-keygen -q -t ed25519 -N '' -f "$SSHD_DIR/client_key" </dev/null || return 1
  cp "$SSHD_DIR/client_key.pub" "$SSHD_DIR/authorized_keys"
  chmod 600 "$SSHD_DIR/authorized_keys"
  cat >"$SSHD_DIR/sshd_config" <<EOF
ListenAddress 127.0.0.1:$SSHD_PORT
HostKey $SSHD_DIR/host_key
PidFile none
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile $SSHD_DIR/authorized_keys
StrictModes no
UsePAM no
PrintMotd no
X11Forwarding no
AllowTcpForwarding no
MaxStartups 64:30:128
MaxSessions 64
LogLevel VERBOSE
EOF
  {
    echo "Host h1 h2 h3 h4 h5 h6 h7 h8 127.0.0.1"
    echo "  HostName 127.0.0.1"
    echo "  Port $SSHD_PORT"
    echo "  User root"
    echo "  IdentityFile $SSHD_DIR/client_key"
    echo "  IdentitiesOnly yes"
    echo "  UserKnownHostsFile $SSHD_DIR/known_hosts"
    echo "  GlobalKnownHostsFile /dev/null"
    echo "  StrictHostKeyChecking yes"
    echo "  HostKeyAlias nfstorm-test-sshd"
    echo "  BatchMode yes"
    echo "  LogLevel ERROR"
  } >"$SSHD_DIR/ssh_config"
  echo "nfstorm-test-sshd $(cat "$SSHD_DIR/host_key.pub")" >"$SSHD_DIR/known_hosts"
  SSH_CONFIG=$SSHD_DIR/ssh_config
  [ -d /run/sshd ] || { mkdir -p /run/sshd && chmod 755 /run/sshd; } || return 1
  local bin; bin=$(command -v sshd || echo /usr/sbin/sshd)
  # sshd insists on being started by its absolute path (it re-executes itself)
  "$bin" -D -e -f "$SSHD_DIR/sshd_config" -E "$SSHD_LOG" </dev/null &
  SSHD_PID=$!
  for _ in $(seq 50); do
    _sshd_port_listens "$SSHD_PORT" && return 0
    kill -0 "$SSHD_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "sshd: did not start: $(tail -3 "$SSHD_LOG" 2>/dev/null)" >&2
  sshd_stop
  return 1
}

sshd_stop() {
  if [ -n "$SSHD_PID" ]; then
    # its per-connection children first (sessions a failed test left open)
    local kids; kids=$(ps -o pid= --ppid "$SSHD_PID" 2>/dev/null)
    [ -n "$kids" ] && kill $kids 2>/dev/null
    kill "$SSHD_PID" 2>/dev/null
    wait "$SSHD_PID" 2>/dev/null
    SSHD_PID=""
  fi
  [ -n "${SSHD_DIR:-}" ] && rm -rf "$SSHD_DIR"
  SSHD_DIR=""
}
