/* latctl: the latency target search (see latctl.h). */
#include <string.h>
#include "agent/latctl.h"

void latctl_init(struct latctl *c, uint64_t target_ns, double pct, uint64_t window_ns, uint32_t max_depth)
{
    memset(c, 0, sizeof *c);
    c->target_ns = target_ns;
    c->pct = pct > 0 && pct <= 100 ? pct : 100;
    c->window_ns = window_ns ? window_ns : 1;
    c->max_depth = max_depth ? max_depth : 1;
    c->cur = 1;
    hist_init(&c->acc);
}

static int finish(struct latctl *c, uint32_t found)
{
    c->done = 1;
    c->found = found;
    c->cur = found ? found : 1;
    return 1;
}

int latctl_interval(struct latctl *c, const struct op_set *s, uint64_t iv_ns)
{
    int met;

    if (c->done)
        return 0;
    hist_merge(&c->acc, &s->op[OP_READ].lat);
    hist_merge(&c->acc, &s->op[OP_WRITE].lat);
    c->acc_ns += iv_ns;
    if (c->acc_ns < c->window_ns)
        return 0;
    if (c->acc.count == 0) {
        c->acc_ns = 0;
        return 0;
    }
    met = hist_percentile(&c->acc, c->pct) <= c->target_ns;
    c->acc_ns = 0;
    hist_init(&c->acc);
    if (met) {
        c->lo = c->cur;
        if (c->cur >= c->max_depth || (c->hi && c->hi == c->lo + 1))
            return finish(c, c->lo);
        if (c->hi)
            c->cur = c->lo + (c->hi - c->lo) / 2;
        else
            c->cur = c->cur * 2 > c->max_depth ? c->max_depth : c->cur * 2;
    } else {
        c->hi = c->cur;
        if (c->hi <= c->lo + 1)
            return finish(c, c->lo);
        c->cur = c->lo + (c->hi - c->lo) / 2;
    }
    return 1;
}
