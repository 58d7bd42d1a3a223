"""big_journal.py PATH [N]: write a complete, ok journal of one phase on 4
agents with N (default 4000) one-second intervals each and each agent's
phase-done (the sum of its intervals), big enough that reporting it takes
seconds: for tests of signals during the result's write."""
import json
import sys

path = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
with open(path, "w") as f:
    def dump(o):
        f.write(json.dumps(o, separators=(",", ":")) + "\n")
    dump({"type": "header", "schema": 2, "label": "", "started": 0, "interval_ms": 1000, "nagents": 4,
          "agents": [{"id": i, "addr": "a:%d" % i, "host": "h", "ncpus": 1, "clock_offset_ns": 0, "rtt_ns": 1}
                     for i in range(4)],
          "phases": [{"name": "p", "rw": "randread", "bs": 4096, "numjobs": 1, "njobs": 1}]})
    # buckets 200, 203, ... 1397 hold 5 each: runs of one bucket, 2 apart
    # (the histogram form of common/hist_codec.h); min and max lie in the
    # first and last bucket: the lowest value of each (common/hist.c)
    idx = list(range(200, 1400, 3))
    def low(i):
        return i if i < 128 else (64 + i % 64) << (i // 64 - 1)
    def runs(n):
        r = [idx[0], 1, n]
        for _ in idx[1:]:
            r += [2, 1, n]
        return r
    lat = {"count": len(idx) * 5, "sum": 10**9, "min": low(idx[0]), "max": low(idx[-1]), "runs": runs(5)}

    def ops(h):
        return {"read": {"ops": h["count"], "bytes": h["count"] * 4096, "errors": 0, "lat": h}}
    for k in range(n):
        for a in range(4):
            dump({"type": "interval", "phase": 0, "agent": a, "k": k, "inflight": 0, "oldest_ns": 0,
                  "ops": ops(lat)})
    tot = dict(lat, count=lat["count"] * n, sum=lat["sum"] * n, runs=runs(5 * n))
    for a in range(4):
        dump({"type": "phase_done", "phase": 0, "agent": a, "duration_ns": n * 10**9, "start_ns": 0,
              "cpu_user_s": 0.0, "cpu_sys_s": 0.0, "cores": 1, "nintervals": n, "ops": ops(tot)})
    dump({"type": "phase_end", "phase": 0})
    dump({"type": "end", "outcome": "ok"})
