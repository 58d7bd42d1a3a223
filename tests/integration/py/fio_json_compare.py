"""Compare nfstorm's fio-format JSON with fio's own of the same workload:
the same keys and the same JSON types (int, float, string, object, array),
recursively.  Usage: fio_json_compare.py FIO.json NFSTORM.json

Deliberate differences are listed below, each with its reason; anything
else that differs fails, printed one path a line.  Values are not compared
here (the workloads' numbers differ by nature); the calling test checks
nfstorm's values against nfstorm's own result."""
import json
import sys

# Paths (dot-joined, "*" for any array index or any key under it) that one
# side may have and the other not.
ONLY_FIO = {
    # fio watched the local block device; nfstorm's agents watch none (an
    # agent's file system is usually NFS, where fio leaves it out too)
    "disk_util": "local block-device stats: fio omits it where it has none",
}
ONLY_NFSTORM = {
    "nfstorm": "nfstorm's own additions, under a key fio's readers ignore",
    "client_stats": "one entry per agent and phase, fio's client/server layout",
}
# Keys whose members are data, not schema: their key sets differ by run
# (which latency bins were hit, which options the job file set).
DATA_KEYS = {"bins", "job options", "global options"}


def jtype(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "null"


def walk(a, b, path, out):
    ta, tb = jtype(a), jtype(b)
    if ta != tb:
        out.append("%s: fio has %s, nfstorm %s" % (path or ".", ta, tb))
        return
    last = path.rsplit(".", 1)[-1]
    if ta == "object":
        if last in DATA_KEYS:
            # members are data: every value is of one type on both sides
            for k, v in list(a.items())[:1] + list(b.items())[:1]:
                if jtype(v) != ("int" if last == "bins" else "string"):
                    out.append("%s.%s: a %s" % (path, k, jtype(v)))
            return
        for k in a:
            p = "%s.%s" % (path, k) if path else k
            if k not in b:
                if p not in ONLY_FIO:
                    out.append("%s: only in fio" % p)
                continue
            walk(a[k], b[k], p, out)
        for k in b:
            p = "%s.%s" % (path, k) if path else k
            if k not in a and p not in ONLY_NFSTORM:
                out.append("%s: only in nfstorm" % p)
    elif ta == "array":
        if a and b:
            for x in b:               # every nfstorm element against fio's first
                walk(a[0], x, path + ".*", out)


def main():
    fio = json.load(open(sys.argv[1]))
    ours = json.load(open(sys.argv[2]))
    out = []
    walk(fio, ours, "", out)
    for k in ONLY_FIO:
        if k in ours:
            out.append("%s: listed as fio-only but nfstorm has it" % k)
    if not fio.get("jobs") or not ours.get("jobs"):
        out.append("jobs: empty")
    for line in out:
        print(line)
    if out:
        sys.exit(1)
    print("same keys and types (%d deliberate differences)" % (len(ONLY_FIO) + len(ONLY_NFSTORM)))


if __name__ == "__main__":
    main()
