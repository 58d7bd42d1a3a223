/* client_cap: declared per-client caps and the faster-than-the-link rule
 * (see client_cap.h).  Strictly faster: a read's payload can at best
 * approach the link's rate (headers take their share), and the phase's
 * time is its own run time, so no margin is needed for the measurement. */
#include "coordinator/fleet/client_cap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/names.h"
#include "common/units.h"
#include "proto/msg.h"

static int parse_bits(const char *s, uint64_t *bps)
{
    static const struct { const char *suffix; double mult; } bits[] = {
        { "bit/s", 1 }, { "kbit/s", 1e3 }, { "mbit/s", 1e6 }, { "gbit/s", 1e9 }, { "tbit/s", 1e12 },
    };
    char *end;
    double v;

    if (*s < '0' || *s > '9')
        return -EINVAL;
    v = strtod(s, &end);
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
        if (strcasecmp(end, bits[i].suffix) == 0) {
            v = v * bits[i].mult / 8.0;
            if (!(v >= 1.0 && v < 1.8e19))
                return -EINVAL;
            *bps = (uint64_t)v;
            return 0;
        }
    }
    return -EINVAL;
}

int client_cap_parse_rate(const char *s, uint64_t *bps)
{
    char num[64];
    size_t n = strlen(s);
    uint64_t v;

    if (n == 0 || n >= sizeof num)
        return -EINVAL;
    if (parse_bits(s, bps) == 0)
        return 0;
    memcpy(num, s, n + 1);
    if (n > 2 && strcmp(num + n - 2, "/s") == 0)
        num[n - 2] = '\0';
    if (units_parse_size(num, &v) < 0 || v == 0)
        return -EINVAL;
    *bps = v;
    return 0;
}

int client_caps_add(struct client_caps *c, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    const char *rate = eq ? eq + 1 : arg;
    char label[CLIENT_CAP_LABEL_MAX], why[128];
    uint64_t bps;
    uint32_t i;

    if (client_cap_parse_rate(rate, &bps) < 0) {
        snprintf(err, errlen, "--client-cap %s: want RATE or LABEL=RATE, a RATE like 500MiB/s or "
                 "10Gbit/s", arg);
        return -EINVAL;
    }
    if (!eq) {
        c->all_bps = bps;
        return 0;
    }
    if ((size_t)(eq - arg) >= sizeof label || eq == arg) {
        snprintf(err, errlen, "--client-cap %s: a label of 1 to %d bytes before '='", arg,
                 CLIENT_CAP_LABEL_MAX - 1);
        return -EINVAL;
    }
    memcpy(label, arg, (size_t)(eq - arg));
    label[eq - arg] = '\0';
    if (strchr(label, ',') || msg_labels_check(label, why, sizeof why) < 0) {
        snprintf(err, errlen, "--client-cap %s: bad label: %s", arg,
                 strchr(label, ',') ? "one label per --client-cap" : why);
        return -EINVAL;
    }
    for (i = 0; i < c->n && strcmp(c->by_label[i].label, label) != 0; i++)
        ;
    if (i == c->n) {
        if (c->n == CLIENT_CAP_MAX) {
            snprintf(err, errlen, "--client-cap %s: more than %d labels", arg, CLIENT_CAP_MAX);
            return -EINVAL;
        }
        c->n++;
    }
    snprintf(c->by_label[i].label, sizeof c->by_label[i].label, "%s", label);
    c->by_label[i].bps = bps;
    return 0;
}

uint64_t client_caps_for(const struct client_caps *c, const char *labels)
{
    uint64_t best = 0;

    if (!c)
        return 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (labels && names_list_has(labels, ',', c->by_label[i].label, strlen(c->by_label[i].label)) && c->by_label[i].bps > best)
            best = c->by_label[i].bps;
    return best ? best : c->all_bps;
}

int client_cap_faster(const struct agent_phase *ap, const struct host_sample *h, uint64_t cap_bps,
                      struct client_fast *f)
{
    double secs = (double)ap->duration_ns / 1e9;
    double nic_bps = h && h->present && h->nic_route && h->speed_mbps ? (double)h->speed_mbps * 1e6 / 8.0 : 0;

    memset(f, 0, sizeof *f);
    if (secs <= 0 || ap->sealed.count[OP_READ].bytes == 0 || (!nic_bps && !cap_bps))
        return 0;
    f->read_bps = (double)ap->sealed.count[OP_READ].bytes / secs;
    if (nic_bps && (!cap_bps || nic_bps <= (double)cap_bps)) {
        f->limit_bps = nic_bps;
        f->nic_mbps = h->speed_mbps;
    } else {
        f->limit_bps = (double)cap_bps;
        f->cap_bps = cap_bps;
    }
    return f->read_bps > f->limit_bps;
}

void client_cap_text(const struct client_fast *f, char *out, size_t outlen)
{
    char lim[48];

    if (f->nic_mbps && f->nic_mbps % 1000 == 0)
        snprintf(lim, sizeof lim, "NIC %u Gbit/s", f->nic_mbps / 1000);
    else if (f->nic_mbps)
        snprintf(lim, sizeof lim, "NIC %u Mbit/s", f->nic_mbps);
    else {
        char r[32];
        units_fmt_rate(r, sizeof r, (double)f->cap_bps, 1024);
        snprintf(lim, sizeof lim, "client cap %s", r);
    }
    snprintf(out, outlen, "faster than the link (%s): page cache or a client-side cache?", lim);
}
