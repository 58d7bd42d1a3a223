#!/usr/bin/env bash
# t1852: scripts/install-deps.sh installs in tiers and never starts or
# enables a service.  Against stand-ins for apt-get, dpkg-query, dpkg and
# deb-systemd-helper (nothing is installed; the machine's policy-rc.d is not
# touched: NFSTORM_POLICY_RC_D points at a file of the test's own):
# - the demo tier asks only for the build's and the NFS server's packages
#   (no chromium, slurm-wlm, munge, openssh-server, valgrind, clang, pandas,
#   gnuplot, systemd), the test tier for those too;
# - while apt-get runs, policy-rc.d answers 101; after, the original is
#   back byte for byte (and absent stays absent), also when apt-get fails;
# - a unit the install enabled is disabled again;
# - every package in the list has a reason; an unknown tier is refused.
source "$(dirname "$0")/lib.sh"
S=$T/scripts; B=$T/bin; mkdir -p "$S" "$B"
cp "$ROOT/scripts/install-deps.sh" "$S/"
printf '#!/bin/sh\necho built >>"%s/libnfs.calls"\n' "$T" >"$S/build-libnfs.sh"
# nothing installed but coreutils; dpkg -L lists a unit for openssh-server
cat >"$B/dpkg-query" <<'X'
#!/bin/sh
exit 1
X
cat >"$B/dpkg" <<X
#!/bin/sh
[ "\$1" = -L ] && [ "\$2" = openssh-server ] && echo /lib/systemd/system/ssh.service
exit 0
X
cat >"$B/apt-get" <<X
#!/bin/sh
# record what policy-rc.d says while packages install
if [ "\$1" = install ]; then
  echo "\$@" >>"$T/apt.args"
  sh "\$NFSTORM_POLICY_RC_D" ssh start; echo "policy rc \$?" >>"$T/apt.policy"
  [ -f "$T/apt.fail" ] && exit 100
fi
exit 0
X
cat >"$B/deb-systemd-helper" <<X
#!/bin/sh
echo "\$@" >>"$T/dsh.calls"
exit 0
X
chmod +x "$S"/*.sh "$B"/*
run_tier() { PATH="$B:$PATH" NFSTORM_POLICY_RC_D="$T/policy-rc.d" bash "$S/install-deps.sh" "$@" >"$T/out" 2>&1; }

printf '#!/bin/sh\n# the machine'"'"'s own\nexit 0\n' >"$T/policy-rc.d"; cp -p "$T/policy-rc.d" "$T/policy.orig"
run_tier demo || fail "demo tier: $(cat "$T/out")"
demo=$(cat "$T/apt.args")
for p in build-essential libuv1-dev libmsgpack-dev libinih-dev libjansson-dev libssl-dev liburing-dev libaio-dev \
         cmake nfs-ganesha nfs-ganesha-vfs rpcbind libnfs-utils python3; do
  grep -qw -- "$p" <<<"$demo" || fail "demo tier lacks $p: $demo"
done
for p in chromium slurm-wlm munge openssh-server valgrind clang python3-pandas gnuplot-nox systemd libcmocka-dev fio; do
  grep -qw -- "$p" <<<"$demo" && fail "demo tier installs $p: $demo"
done
[ "$(cat "$T/apt.policy")" = "policy rc 101" ] || fail "policy-rc.d during the install: $(cat "$T/apt.policy")"
cmp -s "$T/policy-rc.d" "$T/policy.orig" || fail "the machine's policy-rc.d was not restored: $(cat "$T/policy-rc.d")"
[ "$(cat "$T/libnfs.calls")" = built ] || fail "the demo tier did not build libnfs"

rm -f "$T/apt.args" "$T/apt.policy" "$T/policy-rc.d"
run_tier test || fail "test tier: $(cat "$T/out")"
for p in chromium slurm-wlm munge openssh-server valgrind clang libcmocka-dev fio nfs-ganesha libuv1-dev; do
  grep -qw -- "$p" "$T/apt.args" || fail "test tier lacks $p: $(cat "$T/apt.args")"
done
[ "$(cat "$T/apt.policy")" = "policy rc 101" ] || fail "policy-rc.d during the test install: $(cat "$T/apt.policy")"
[ -e "$T/policy-rc.d" ] && fail "a policy-rc.d was left where there was none: $(cat "$T/policy-rc.d")"
grep -qx 'disable ssh.service' "$T/dsh.calls" || fail "ssh.service was not disabled again: $(cat "$T/dsh.calls" 2>/dev/null)"

# apt-get fails: the policy is still put back, the failure is the script's
cp -p "$T/policy.orig" "$T/policy-rc.d"; touch "$T/apt.fail"
run_tier test && fail "a failed apt-get install passed"
cmp -s "$T/policy-rc.d" "$T/policy.orig" || fail "policy-rc.d not restored after a failed install"

"$ROOT/scripts/install-deps.sh" list | awk 'NF < 2 { bad = bad " " $1 } END { if (bad) { print "no reason:" bad; exit 1 } }' \
  || fail "a package without its reason"
expect_fail "unknown tier" "install-deps: unknown tier 'nope' \(build, demo, bench, test or list\)" \
  "$ROOT/scripts/install-deps.sh" nope
echo "t1852: ok"
