"""The per-agent counters of a result's interval (docs/results.md, "interval
agents"), as one dict per agent: {"id", "ops": {op: {"ops", "bytes",
"errors"}}, "reported", "inflight", "oldest_ns"}.  Checks the columns'
lengths, so a test reading through it also asserts the form."""


def agents(iv):
    cols = iv["agents"]
    assert isinstance(cols, dict), "interval agents: want the columns form, got %r" % type(cols)
    n = None
    for op in cols["ops"].values():
        for key in ("ops", "bytes", "errors"):
            if key in op:
                assert n is None or len(op[key]) == n, "column %s: %d, want %s" % (key, len(op[key]), n)
                n = len(op[key])
    for key in ("reported", "inflight", "oldest_ns"):
        if key in cols:
            assert n is None or len(cols[key]) == n
            n = len(cols[key])
    if n is None:
        raise ValueError("interval without columns: pass nagents to agents_n")
    return agents_n(iv, n)


def agents_n(iv, n):
    cols = iv["agents"]
    out = []
    for a in range(n):
        ops = {}
        for name, op in cols["ops"].items():
            o, b = op["ops"][a], op["bytes"][a]
            e = op["errors"][a] if "errors" in op else 0
            if o or e:
                ops[name] = {"ops": o, "bytes": b, "errors": e}
        d = {"id": a, "ops": ops, "reported": bool(cols["reported"][a]) if "reported" in cols else True}
        if "inflight" in cols and cols["inflight"][a]:
            d["inflight"] = cols["inflight"][a]
            d["oldest_ns"] = cols["oldest_ns"][a]
        out.append(d)
    return out
