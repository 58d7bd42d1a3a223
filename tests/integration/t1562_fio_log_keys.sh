#!/usr/bin/env bash
# fio's log keys: per_job_logs=0 (one file a prefix, phases appended),
# log_offset (6 fields), log_max_value (the interval's maximum), the
# command-line form, no log_avg_msec (a warning, the run's interval), and
# bad values and combinations refused with one line, exit 2 (an unwritable
# prefix: exit 1 before the run starts).
source "$(dirname "$0")/lib.sh"
D=$T/d L=$T/logs; mkdir -p "$D" "$L"; cd "$L"
job() { printf '[%s]\ndirectory=%s\nsize=64k\nrw=write\nbs=4k\n' "$1" "$D"; }
{ job one; printf 'write_iops_log=pj\nwrite_lat_log=pj\nper_job_logs=0\nlog_avg_msec=100\nlog_offset=1\nlog_max_value=1\n'
  job two; printf 'stonewall\nwrite_iops_log=pj\nper_job_logs=0\nlog_avg_msec=100\n'; } >"$T/p.fio"
timeout 60 "$NFSTORM" run "$T/p.fio" --local 1 --quiet --json "$T/r.json" >"$T/out" 2>&1 || fail "run: $(tail -n3 "$T/out")"
for f in pj_iops.log pj_iops.agent0 pj_lat.log pj_clat.log pj_slat.log; do [ -e "$f" ] || fail "$f missing: $(ls)"; done
ls | grep -q '\.1\.log$' && fail "per_job_logs=0 wrote numbered files: $(ls)"
py "$L" "$T/r.json" <<'PY'
import json, os, sys
L = sys.argv[1]; ph = json.load(open(sys.argv[2]))["phases"]
lines = [l.rstrip("\n").split(", ") for l in open(os.path.join(L, "pj_iops.log"))]
# phase one: log_offset=1, 6 fields; phase two (appended, its own time base): 5
six = [l for l in lines if len(l) == 6]; five = [l for l in lines if len(l) == 5]
assert six and five and len(six) + len(five) == len(lines), lines
assert lines.index(five[0]) > lines.index(six[-1]), "phase two's lines must follow phase one's"
for l in six: assert l[2] == "1" and l[3] == "0" and l[4] == "0" and l[5] == "0", l
# log_max_value=1: the one-interval phase's lat line is the phase's max latency
lat = [l.rstrip("\n").split(", ") for l in open(os.path.join(L, "pj_clat.log"))]
w = ph[0]["ops"]["write"]
if len(lat) == 1:
    assert int(lat[0][1]) == w["lat_ns"]["max"], (lat, w["lat_ns"]["max"])
assert max(int(l[1]) for l in lat) == w["lat_ns"]["max"], (lat, w["lat_ns"]["max"])
PY
# the command line: --write_bw_log=PREFIX without log_avg_msec: warned, logged per --interval
timeout 60 "$NFSTORM" run --name=c --directory="$D" --size=64k --rw=write --write_bw_log=cl --local 1 \
  --quiet --interval 200ms >"$T/out" 2>&1 || fail "cli run: $(tail -n3 "$T/out")"
grep -q "warning: fio logs without log_avg_msec: nfstorm logs the mean of each 200 ms interval, not every I/O" "$T/out" ||
  fail "no warning for a log without log_avg_msec: $(cat "$T/out")"
[ -s cl_bw.1.log ] && [ -s cl_bw.1.agent0 ] || fail "command-line logs missing: $(ls)"
grep -Eq '^[0-9]+, [0-9]+, 1, 0, 0$' cl_bw.1.log || fail "bad line: $(head -2 cl_bw.1.log)"
# bad input (nothing runs)
rm -rf "$D"; mkdir -p "$D"
bad() { local name=$1 re=$2; shift 2; { job a; printf '%b' "$1"; } >"$T/b.fio"; shift
  expect_fail "$name" "$re" "$NFSTORM" run "$T/b.fio" --local 1 --quiet "$@"
  [ "$(timeout 30 "$NFSTORM" run "$T/b.fio" --local 1 --quiet "$@" >/dev/null 2>&1; echo $?)" = "${EXPECT_RC:-2}" ] ||
    fail "$name: want exit ${EXPECT_RC:-2}"; }
bad short_avg "b.fio:7: bad value for 'log_avg_msec': '5' \(want milliseconds, 0 or 10..3600000\)" 'write_bw_log\nlog_avg_msec=5\n'
bad coarse "b.fio:7: bad value for 'log_hist_coarseness': '11'" 'write_hist_log\nlog_hist_coarseness=11\n'
bad perjob "b.fio:7: bad value for 'per_job_logs': 'maybe' \(want 0 or 1\)" 'write_bw_log\nper_job_logs=maybe\n'
bad interval "job 'a': log_avg_msec=100 asks for 100 ms intervals, --interval says 500 ms" \
  'write_bw_log\nlog_avg_msec=100\n' --interval 500ms
bad hist "job 'a': log_hist_msec=150 is not a multiple of the 100 ms interval" \
  'write_hist_log\nlog_avg_msec=100\nlog_hist_msec=150\n'
bad differ "job 'b': log_avg_msec=200 differs from job 'a''s 100" \
  "write_bw_log\nlog_avg_msec=100\n[b]\nstonewall\ndirectory=$D\nsize=64k\nrw=write\nwrite_iops_log\nlog_avg_msec=200\n"
EXPECT_RC=1 bad unwritable "cannot write a fio log: $T/no/such/x_bw.1.log: No such file or directory" \
  "write_bw_log=$T/no/such/x\nlog_avg_msec=100\n"
[ -z "$(ls "$D")" ] || fail "the unwritable-prefix run ran: $(ls "$D")"
echo "fio log keys: per_job_logs=0, log_offset, log_max_value, command line, refusals"
