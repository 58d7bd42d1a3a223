"""The merge contract of a result JSON, shared by the integration tests.
usage: check_merge.py RESULT.json RW BS [MIN_OPS [MIN_S MAX_S]]
For phase 0, the op type RW implies (read/write): ops > MIN_OPS (1000),
aggregate == sum of agents == sum of intervals (ops and bytes), bytes ==
ops x BS, no errors, no ops of the other type, ordered percentiles, and
iops == ops / duration; with MIN_S/MAX_S, the duration within them."""
import json, sys

path, rw, bs = sys.argv[1], sys.argv[2], int(sys.argv[3])
min_ops = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
r = json.load(open(path))
op = "read" if "read" in rw else "write"
ph = r["phases"][0]
o = ph["ops"][op]
assert r["schema"] == 2, r["schema"]
assert ph["rw"] == rw and ph["bs"] == bs, (ph["rw"], ph["bs"])
assert o["ops"] > min_ops, "only %d ops" % o["ops"]
agents = sum(a["ops"][op]["ops"] for a in ph["agents"])
ints = sum(i["ops"].get(op, {}).get("ops", 0) for i in ph["intervals"])
assert o["ops"] == agents == ints, "aggregate %d, agents %d, intervals %d" % (o["ops"], agents, ints)
assert o["bytes"] == sum(a["ops"][op]["bytes"] for a in ph["agents"]), "bytes != sum of agents"
assert o["bytes"] == sum(i["ops"].get(op, {}).get("bytes", 0) for i in ph["intervals"]), "bytes != sum of intervals"
assert o["bytes"] == o["ops"] * bs, "bytes %d != ops %d x %d" % (o["bytes"], o["ops"], bs)
assert o["errors"] == 0, "%d errors" % o["errors"]
other = "write" if op == "read" else "read"
assert ph["ops"].get(other, {}).get("ops", 0) == 0, ph["ops"][other]
l = o["lat_ns"]
assert 0 < l["min"] <= l["p50"] <= l["p99"] <= l["p999"] <= l["max"], l
assert abs(o["iops"] - o["ops"] / ph["duration_s"]) < 0.01 * o["iops"], (o["iops"], o["ops"])
if len(sys.argv) > 6:
    lo, hi = float(sys.argv[5]), float(sys.argv[6])
    assert lo <= ph["duration_s"] <= hi, "duration %.2f s" % ph["duration_s"]
