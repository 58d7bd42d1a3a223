/* client_json: the JSON form of the agents' own measurements
 * (client_result.h), one form for the result file, the journal and
 * result_load (docs/results.md, "host", "mountstats" and "proxy"):
 *   "host": {"cpu_user_s", "cpu_sys_s", "cpu_util", "cores", "threads",
 *            "nic": {"name", "rx_bytes", "tx_bytes", "speed_mbps"}}
 *   "mountstats": {"mount", ["note",] "xprt": {...},
 *                  "per_op": {"READ": {"ops", "ntrans", ...}, ...}}
 *   "proxy": see client_json_proxy
 * cpu_util (busy share of the cores over the span) is derived: written,
 * never read back.  The parser validates everything a hostile file could
 * get wrong (types, ranges, names, counts) before it touches the model. */
#ifndef NFSTORM_CLIENT_JSON_H
#define NFSTORM_CLIENT_JSON_H

#include <jansson.h>
#include "coordinator/result/client_result.h"

/* The "host" object of h over span_s seconds (cpu_util 0 when unknown). */
json_t *client_json_host(const struct host_sample *h, double span_s);
/* The "mountstats" object: st may be NULL (only the note, if any). */
json_t *client_json_ms(const struct ms_store *st, const char *mount, const char *note);
/* The "proxy" object (the local NFS proxy, common/client_stats.h):
 *   {"pid", "name", "port", "cpu_user_us", "cpu_sys_us", "connections",
 *    "remotes": ["10.0.1.5:2049", ...], "read_bytes", "write_bytes"
 *    [, "route_host"]}
 * the same in the phase, the intervals, the journal and the time series. */
json_t *client_json_proxy(const struct proxy_sample *p);
/* An agent's interval into obj (nothing when iv is NULL), compact:
 *   "host": {"cpu_us", "rx_bytes", "tx_bytes"[, "cores", "threads", "nic",
 *            "speed_mbps"]}, "mountstats": {...}
 * cpu_us is user + sys CPU in microseconds (getrusage's unit: exact); the
 * statics only when with_static (they change rarely: the journal writes
 * them when iv->static_new, the time series always). */
void client_json_put_iv(json_t *obj, const struct client_iv *iv, const char *mount, int with_static);
/* The journal's shorter form of the same: "h": [cpu_us, rx_bytes, tx_bytes],
 * "hs": {cores, threads, nic, speed_mbps} when iv->static_new, and
 * "mountstats". */
void client_json_put_iv_compact(json_t *obj, const struct client_iv *iv, const char *mount);
int client_json_parse_iv_compact(const json_t *obj, struct client_sample *out, int *has_static,
                                 char *why, size_t len);
/* Its inverse: *has_static says whether the statics were there (else the
 * caller inherits them, client_result_inherit_static).  0 or -EINVAL. */
int client_json_parse_iv(const json_t *obj, struct client_sample *out, int *has_static, char *why,
                         size_t len);
/* Interval k's "client" of the JSON result, in columns (one array element
 * per agent, as the interval's "agents"): cpu_us, rx_bytes, tx_bytes, and
 * cores, threads, nic, speed_mbps only in an interval where some agent's
 * changed (static_new: its first, mostly); "sent" (0/1) only when
 * some agent sent no host sample; "mountstats" (null or the object per
 * agent) only when some agent's mount moved.  NULL when no agent sent
 * anything for k. */
json_t *client_json_interval(const struct run_result *r, uint32_t phase, uint32_t k);
/* Its inverse into r (agents' interval k).  0, or -EINVAL with why. */
int client_json_load_interval(const json_t *col, struct run_result *r, uint32_t phase, uint32_t k,
                              char *why, size_t len);
/* The phase's "host" and "mountstats" members of obj (either may be absent) back
 * into out (zeroed first).  0, or -EINVAL with a reason in why. */
int client_json_parse(const json_t *obj, struct client_sample *out, char *why, size_t len);

#endif
