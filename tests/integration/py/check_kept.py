"""check_kept.py RESULT.json OP: the run kept its one agent through a stall
(the stall tests t1710, t1712): the agent is not lost, it did OP ops and
every one of them is in an interval.  Prints "OPS INTERVALS DURATION_S"."""
import json, sys

r = json.load(open(sys.argv[1]))
op = sys.argv[2]
ph = r["phases"][0]
assert not r["agents"][0].get("lost"), r["agents"][0]
ops = ph["ops"][op]["ops"]
iv = sum(i["ops"][op]["ops"] for i in ph["intervals"] if op in i.get("ops", {}))
assert ops > 0 and iv == ops, (ops, iv)
print(ops, len(ph["intervals"]), ph["duration_s"])
