/* client_cap: what one client (agent) can move at most, as the user
 * declares it (--client-cap RATE, --client-cap LABEL=RATE), and the rule
 * that flags a read faster than that or than the agent's NIC link.
 *
 * A figure beyond what the hardware can do is not a measurement of the
 * storage: reads that arrive faster than the link they must cross came
 * from a cache on the client's side of it (the page cache, a client-side
 * cache).  The report marks them (`faster than the link (NIC 10 Gbit/s):
 * page cache or a client-side cache?`) instead of printing them as the
 * storage's speed.  The caps are the user's claims; the NIC's speed the
 * agent's own (/sys/class/net/IF/speed of the interface on the route to
 * the storage server: common/client_stats.h nic_route). */
#ifndef NFSTORM_CLIENT_CAP_H
#define NFSTORM_CLIENT_CAP_H

#include <stddef.h>
#include <stdint.h>
#include "common/client_stats.h"
#include "coordinator/result/result.h"

#define CLIENT_CAP_MAX       64     /* --client-cap options */
#define CLIENT_CAP_LABEL_MAX 64

struct client_caps {
    uint64_t all_bps;               /* --client-cap RATE: every agent (0: none) */
    uint32_t n;
    struct {
        char label[CLIENT_CAP_LABEL_MAX];
        uint64_t bps;
    } by_label[CLIENT_CAP_MAX];     /* --client-cap LABEL=RATE */
};

/* A rate: SIZE/s with the plan's size suffixes ("500MiB/s", "1g/s"; the
 * "/s" may be left out), or bits a second with an SI prefix ("80Mbit/s",
 * "10Gbit/s", "100kbit/s").  0 with *bps set (> 0), or -EINVAL. */
int client_cap_parse_rate(const char *s, uint64_t *bps);

/* Add one --client-cap value (RATE or LABEL=RATE; a later one for the same
 * label, or a second RATE, replaces the earlier).  0, or -EINVAL with a
 * one-line reason in err. */
int client_caps_add(struct client_caps *c, const char *arg, char *err, size_t errlen);

/* The cap of an agent with these labels (comma-separated, "" none): the
 * largest cap of a label it has (so that only a read beyond every claim
 * is flagged), else the cap for every agent; 0 when none applies. */
uint64_t client_caps_for(const struct client_caps *c, const char *labels);

/* Why a phase's reads are beyond the hardware. */
struct client_fast {
    double read_bps;                /* the agent's read bytes over its phase time */
    double limit_bps;               /* the tighter of the two limits below */
    uint32_t nic_mbps;              /* the link's speed when it is the limit, else 0 */
    uint64_t cap_bps;               /* the declared cap when it is the limit, else 0 */
};

/* The rule: the agent's reads in its phase (ap's read bytes over its
 * duration) exceed its NIC link (h's speed, only when h's nic is on the
 * route to the storage server) or cap_bps (0: none).  1 with *f filled,
 * or 0 (no claim: no reads, no known limit, or within it). */
int client_cap_faster(const struct agent_phase *ap, const struct host_sample *h, uint64_t cap_bps,
                      struct client_fast *f);

/* The flag's text: "faster than the link (NIC 10 Gbit/s): page cache or a
 * client-side cache?" or "... (client cap 10MiB/s): ...". */
void client_cap_text(const struct client_fast *f, char *out, size_t outlen);

#endif
