#!/usr/bin/env bash
# The pool host decides (coordinator/fleet/pool_policy.h): hand-made submissions,
# which skip the submitter's own checks, with every refused option and plan
# key (for a run and a clean), aimed at files outside serve's run directory
# by absolute names, '..' and a symlink, and a field past its limit: each is refused by name with exit status 2, nothing is
# created there, and serve still runs a good submission afterwards.
. "$(dirname "$0")/lib.sh"
# the table decides every option run and clean take: one added to the CLI
# without a row would be refused unnamed (or, worse, judged by arity wrong)
grep -oh '"--[a-z][a-z0-9-]*"' "$ROOT"/coordinator/cli/main.c "$ROOT"/coordinator/cli/cmd_report.c "$ROOT"/coordinator/cli/fio_cli.c |
  sort -u | tr -d '"' >"$T/cli-options"
missing=$(while read -r o; do
  case "$o" in --help|--version|--client|--format|--labels|--repetition) continue ;; esac   # not run's, or refused
  grep -q "{ \"$o\"," "$ROOT/coordinator/fleet/pool_policy.c" || echo "$o"
done <"$T/cli-options")
[ -z "$missing" ] || fail "options without a row in pool_policy.c's table: $missing"

. "$(dirname "$0")/dialin_lib.sh"
. "$(dirname "$0")/pool_lib.sh"
D=$T/d; OUT=$T/out; mkdir -p "$D" "$OUT"
ln -s "$OUT" "$T/link"                  # a symlink to the directory they aim at
start_serve
dial_agent a "$D"
pool_has 1

export OUT D T
python3 - >"$T/cases.json" <<'PY'
import json, os
out, d, t = os.environ["OUT"], os.environ["D"], os.environ["T"]
good = "[p]\nioengine=null\nrw=read\nbs=4k\nsize=64k\n"
cases = []
# output files, by an absolute name, '..' from the run directory and through a symlink
for opt in ["--html", "--csv", "--timeseries", "--output", "--json"]:
    for path in [out + "/PWN", "../../" + os.path.basename(t) + "/out/PWN", t + "/link/PWN"]:
        cases.append({"want": opt, "argv": ["@plan", opt, path], "plan": good})
        cases.append({"want": opt, "argv": ["@plan", opt + "=" + path], "plan": good})
# every other refused option of the table
for opt, val in [("--secret-file", out + "/s"), ("--agents", "127.0.0.1:1"), ("--hosts", out + "/h"),
                 ("--local", "2"), ("--listen", "127.0.0.1:1"), ("--spawn", "ssh"),
                 ("--agent-path", out + "/a"), ("--remote-secret-file", out + "/s"),
                 ("--ssh-config", out + "/c"), ("--spawn-address", "1.2.3.4"), ("--ssh-option", "X=y"),
                 ("--remote-allow", out), ("--remote-allow-nfs", "nfs://x/y"), ("--pool", "127.0.0.1:1"),
                 ("--pool-wait", "1s"), ("--expect", "1"), ("--min-agents", "1"), ("--expect-timeout", "1s"),
                 ("--repeat", "2"), ("--repeat-interval", "1s")]:
    cases.append({"want": opt, "argv": ["@plan", opt, val], "plan": good})
for opt in ["--no-wait", "--cleanup", "--dry-run"]:
    cases.append({"want": opt, "argv": ["@plan", opt], "plan": good})
# a plan path (a file on the pool host) instead of @plan
for path in [out + "/plan.fio", "../plan.fio", t + "/link/plan.fio"]:
    cases.append({"want": "a plan path names a file on the pool host", "argv": [path], "plan": None})
# fio log keys, in the plan, as an option and by their directory forms
for key in ["write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log"]:
    for path in [out + "/PLANLOG", "../../" + os.path.basename(t) + "/out/PLANLOG", t + "/link/PLANLOG"]:
        cases.append({"want": key, "argv": ["@plan"], "plan": good + "%s=%s\nlog_avg_msec=500\n" % (key, path)})
    cases.append({"want": key, "argv": ["--name=p", "--ioengine=null", "--rw=read", "--size=64k",
                                        "--%s=%s/PLANLOG" % (key, out)], "plan": None})
# the plan reading the pool host: include, ${VAR}
cases.append({"want": "include", "argv": ["@plan"], "plan": "include /etc/passwd\n" + good})
cases.append({"want": "include", "argv": ["@plan"], "plan": good + "include ../../" + os.path.basename(t) + "/link/x\n"})
cases.append({"want": "${HOME}", "argv": ["@plan"], "plan": good + "filename=/tmp/${HOME}\n"})
# an option the pool does not know, a second @plan
cases.append({"want": "'--frobnicate': not an option the pool knows", "argv": ["@plan", "--frobnicate"], "plan": good})
cases.append({"want": "@plan: given twice", "argv": ["@plan", "@plan"], "plan": good})
# the submission's fields, past what run --pool's options allow (a queue held for 46 days)
cases.append({"want": "expect_timeout_ms 4000000000: over 24h", "argv": ["@plan"], "plan": good,
              "expect": 1, "expect_timeout_ms": 4000000000})
# a clean may not write either: the same table
cases.append({"want": "--html", "argv": ["@plan", "--html", out + "/PWN"], "plan": good, "command": "clean"})
json.dump(cases, open("/dev/stdout", "w"))
PY
n=$(py "$T/cases.json" <<'PY'
import json, sys
print(len(json.load(open(sys.argv[1]))))
PY
)
python3 "$ROOT/tests/integration/py/pool_craft.py" "$CPORT" "$SECRET" "$T/cases.json" >"$T/answers" ||
  fail "pool_craft.py failed: $(tail -n 3 "$T/answers")"
py "$T/cases.json" "$T/answers" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))
answers = [json.loads(l) for l in open(sys.argv[2])]
assert len(answers) == len(cases), (len(answers), len(cases))
for c, a in zip(cases, answers):
    assert a["exit"] == 2, (c, a)
    assert a["error"].startswith("refused by the pool's policy: "), (c, a)
    assert c["want"] in a["error"], (c["want"], a["error"])
    assert a["stdout"] == "" and a["stderr"] == "", ("it ran", c, a)
PY
[ "$(ls -A "$OUT")" = "" ] || fail "files created outside the run directory: $(ls -A "$OUT")"
[ "$(ls "$T" | grep -c '^nfstorm-serve\.')" = 0 ] || fail "a refused submission left a run directory"
[ "$(grep -c "submission from .* refused: refused by the pool's policy" "$T/serve.log")" = "$n" ] ||
  fail "serve did not log every refusal: $(grep -c refused "$T/serve.log") of $n"

# a good one (allowed options, values that look like refused options) still runs
cat >"$T/good.json" <<J
[{"argv": ["@plan", "--label", "--html", "--target=--csv", "--quiet", "--unit-base", "1000"],
  "plan": "[p]\nioengine=null\nrw=read\nbs=4k\nsize=64k\nfilename=$D/f.\${agent}\n"}]
J
python3 "$ROOT/tests/integration/py/pool_craft.py" "$CPORT" "$SECRET" "$T/good.json" >"$T/good.out"
py "$T/good.out" <<'PY'
import json, sys
a = json.loads(open(sys.argv[1]).readline())
assert a["exit"] == 0 and a["error"] == "", a
PY
[ "$(ls -A "$OUT")" = "" ] || fail "the good run created files outside its directory: $(ls -A "$OUT")"
kill -0 "$SPID" || fail "serve died"
exit 0
