"""faultcheck: does nfstorm's verify report match what faultfs injected?

usage: faultcheck.py RESULT.json FAULTS.log --phase P --prefix NAME --kind KIND
                     --agent A [--writer W] --logkind K[,K] --bs BS [--count N] [--checked C]

The faults faultfs logged for files NAME.* (log kinds K) touch a set of
verify units (file, unit offset = floor(off / BS) * BS); the phase's verify
results must name exactly those units, each with KIND (a JSON counter name:
zeroes, stale_generation, corrupt_checksum, torn, ...), read by agent A and
expected from writer W (default A; rotate= reads another agent's files); agent A counts len(units) of KIND and nothing else,
every other agent checked blocks and found none bad; the fleet's counts are
the sum.  --count N also pins len(units), --checked C each agent's
checked blocks.  --kind none: a clean phase
(nothing bad anywhere, whatever the log holds)."""
import argparse, json, os, sys

KINDS = ("corrupt_checksum", "wrong_offset", "wrong_file", "stale_generation", "torn",
         "zeroes", "wrong_writer")


def fail(msg):
    print("faultcheck: " + msg, file=sys.stderr)
    sys.exit(1)


def faults(path, prefix, kinds, bs):
    units = set()
    for line in open(path) if os.path.exists(path) else []:
        f = dict(kv.split("=", 1) for kv in line.split())
        name = f["file"]
        if f["kind"] not in kinds or not name.startswith(prefix + "."):
            continue
        off, n = int(f["off"]), int(f["len"])
        for u in range(off // bs * bs, off + n, bs):
            units.add((name, u))
    return units


def bad_total(v):
    return sum(v.get(k, 0) for k in KINDS)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("result"); ap.add_argument("log")
    ap.add_argument("--phase", type=int, default=0)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--kind", required=True)
    ap.add_argument("--agent", type=int, default=-1)
    ap.add_argument("--writer", type=int, default=-1)
    ap.add_argument("--logkind", default="")
    ap.add_argument("--bs", type=int, default=4096)
    ap.add_argument("--count", type=int, default=-1)
    ap.add_argument("--checked", type=int, default=-1)
    a = ap.parse_args()
    if a.writer < 0:
        a.writer = a.agent
    r = json.load(open(a.result))
    ph = r["phases"][a.phase]
    fleet = ph.get("verify")
    if not fleet:
        fail("phase %d has no verify results: %s" % (a.phase, sorted(ph)))
    agents = [ag.get("verify") for ag in ph["agents"]]
    if any(v is None for v in agents):
        fail("an agent of phase %d has no verify results" % a.phase)
    units = faults(a.log, a.prefix, a.logkind.split(","), a.bs) if a.kind != "none" else set()
    if a.kind != "none" and not units:
        fail("faultfs logged no %s fault for %s.*" % (a.logkind, a.prefix))
    if a.count >= 0 and len(units) != a.count:
        fail("faultfs hit %d units, the test meant %d: %s" % (len(units), a.count, sorted(units)))
    for i, v in enumerate(agents):
        want = len(units) if i == a.agent else 0
        if v.get("checked", 0) <= 0:
            fail("agent %d checked nothing: %s" % (i, v))
        if a.checked >= 0 and v["checked"] != a.checked:
            fail("agent %d checked %d blocks, expected %d" % (i, v["checked"], a.checked))
        for k in KINDS:
            exp = want if k == a.kind else 0
            if v.get(k, 0) != exp:
                fail("agent %d: %s = %s, expected %d (%s)" % (i, k, v.get(k, 0), exp, v))
        if v.get("ok", 0) + bad_total(v) != v["checked"]:
            fail("agent %d: ok + bad != checked: %s" % (i, v))
    for k in ("checked", "ok") + KINDS:
        s = sum(v.get(k, 0) for v in agents)
        if fleet.get(k, 0) != s:
            fail("fleet %s = %s, agents sum to %d" % (k, fleet.get(k, 0), s))
    got = set()
    for b in fleet.get("first", []):
        if b["kind"] != a.kind:
            fail("reported %s, expected %s: %s" % (b["kind"], a.kind, b))
        if b["reader"] != a.agent or b["expected_writer"] != a.writer:
            fail("attributed wrongly (expected reader %d, writer %d): %s" % (a.agent, a.writer, b))
        if a.kind == "stale_generation":
            if b["found_writer"] != a.writer or not 0 < b["found_generation"] < b["expected_generation"]:
                fail("stale block does not name an older generation of agent %d: %s" % (a.writer, b))
        if a.kind == "torn" and b["found_writer"] != a.writer:
            fail("torn block's header is not agent %d's: %s" % (a.writer, b))
        got.add((os.path.basename(b["file"]), b["offset"]))
    if got != units:
        fail("located %s, faultfs injected at %s" % (sorted(got), sorted(units)))
    print("faultcheck: %s: %d unit(s) %s, agent %d, located as injected" %
          (a.prefix, len(units), a.kind, a.agent))


main()
