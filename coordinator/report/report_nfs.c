/* report_nfs: text and HTML renderings of a phase's NFS RPC telemetry.
 * Both read the same ordering (calls, most first), the same op<->RPC
 * pairing and the same op split, so the two reports say the same thing;
 * the HTML calls the gap between op latency and round trip the client's
 * time only when the split says it is. */
#include "coordinator/report/report_nfs.h"
#include "common/sat.h"

#include <string.h>

#include "common/nfs_rpc.h"
#include "common/units.h"
#include "coordinator/result/result.h"
#include "coordinator/result/result_nfs.h"

/* Procedures with calls, most calls first (ties by id: stable output). */
static unsigned order(const struct nfs_rpc_set *s, unsigned ids[NFSP__COUNT])
{
    unsigned n = 0;
    for (unsigned i = 0; i < NFSP__COUNT; i++)
        if (s->proc[i] && s->proc[i]->calls)
            ids[n++] = i;
    for (unsigned a = 1; a < n; a++) {
        unsigned v = ids[a], b = a;
        while (b > 0 && s->proc[ids[b - 1]]->calls < s->proc[v]->calls) {
            ids[b] = ids[b - 1];
            b--;
        }
        ids[b] = v;
    }
    return n;
}

/* The op type whose every op is one call of procedure id (bs <= rsize/wsize). */
static int op_of(unsigned id)
{
    return id == NFSP_READ ? OP_READ : id == NFSP_WRITE ? OP_WRITE : -1;
}

/* Calls in all; *failed: errors that are failures, *expected: LOOKUPs
 * of absent names (nfs_rpc_status_expected), answers and not failures. */
static uint64_t total_calls(const struct nfs_rpc_set *s, uint64_t *failed, uint64_t *expected)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < NFSP__COUNT; i++)
        if (s->proc[i])
            n = sat_add_u64(n, s->proc[i]->calls);
    *failed = nfs_rpc_set_failed(s, expected);
    return n;
}

/* "; 1 LOOKUP answered NOENT (...)" after the headline, when there are any */
static void expected_note(FILE *out, uint64_t expected, const char *pre, const char *post)
{
    if (expected)
        fprintf(out, "%s%llu LOOKUP%s answered NOENT (names looked up before they were created: "
                "answers, not failures)%s", pre, (unsigned long long)expected,
                expected == 1 ? "" : "s", post);
}

/* What both renderings start from: the fleet's set, its totals, and
 * its procedures in order.  0 when the phase has no NFS telemetry. */
struct nfs_view {
    const struct nfs_rpc_set *s;
    const struct phase_result *ph;
    uint64_t calls, errors, expected;
    unsigned ids[NFSP__COUNT], cnt;
};

static int view_open(const struct run_result *r, uint32_t phase, struct nfs_view *v)
{
    const struct result_nfs *n = result_nfs_of(r, phase);

    if (!n || nfs_rpc_set_empty(&n->fleet))
        return 0;
    v->s = &n->fleet;
    v->ph = &r->phases[phase];
    v->calls = total_calls(v->s, &v->errors, &v->expected);
    v->cnt = order(v->s, v->ids);
    return 1;
}

/* "N RPCs, N failed, ... reconnects" and the expected-errors note. */
static void headline(FILE *out, const struct nfs_view *v)
{
    fprintf(out, "%llu RPCs, %llu failed, %llu retransmits, %llu timeouts, %llu reconnects",
            (unsigned long long)v->calls, (unsigned long long)v->errors,
            (unsigned long long)v->s->retransmits, (unsigned long long)v->s->timeouts,
            (unsigned long long)v->s->reconnects);
    expected_note(out, v->expected, "; ", "");
}

/* The k-th procedure's rtt p50, p99 and its op's p50, p99 into q; 1 when
 * the op's figures are there (an op that is one call of it, measured). */
static int row_cells(const struct nfs_view *v, unsigned k, char q[4][32])
{
    const struct nfs_rpc_proc *p = v->s->proc[v->ids[k]];
    int t = op_of(v->ids[k]);

    units_fmt_ns(q[0], sizeof q[0], (double)hist_percentile(&p->rtt, 50.0));
    units_fmt_ns(q[1], sizeof q[1], (double)hist_percentile(&p->rtt, 99.0));
    if (t < 0 || !v->ph->totals.op[t].lat.count)
        return 0;
    units_fmt_ns(q[2], sizeof q[2], (double)hist_percentile(&v->ph->totals.op[t].lat, 50.0));
    units_fmt_ns(q[3], sizeof q[3], (double)hist_percentile(&v->ph->totals.op[t].lat, 99.0));
    return 1;
}

void report_nfs_text(FILE *out, const struct run_result *r, uint32_t phase)
{
    struct nfs_view v;
    char a[32], b[32], c[32], d[32], q[4][32], name[48];

    if (!view_open(r, phase, &v))
        return;
    const struct nfs_rpc_set *s = v.s;
    unsigned *ids = v.ids, cnt = v.cnt;
    fputs("nfs: ", out);
    headline(out, &v);
    fputc('\n', out);
    fprintf(out, "  %-20s %10s %8s %9s %9s %9s %9s\n", "rpc", "calls", "errors", "rtt p50",
            "rtt p99", "op p50", "op p99");
    for (unsigned k = 0; k < cnt && k < REPORT_NFS_TOP; k++) {
        const struct nfs_rpc_proc *p = s->proc[ids[k]];
        int op = row_cells(&v, k, q);
        fprintf(out, "  %-20s %10llu %8llu %9s %9s", nfs_proc_name(ids[k]),
                (unsigned long long)p->calls, (unsigned long long)p->errors, q[0], q[1]);
        if (op)
            fprintf(out, " %9s %9s", q[2], q[3]);
        fputc('\n', out);
    }
    if (cnt > REPORT_NFS_TOP) {
        uint64_t rest = 0;
        for (unsigned k = REPORT_NFS_TOP; k < cnt; k++)
            rest = sat_add_u64(rest, s->proc[ids[k]]->calls);
        fprintf(out, "  (%u more procedures, %llu calls)\n", cnt - REPORT_NFS_TOP,
                (unsigned long long)rest);
    }
    if (v.errors) {
        const char *sep = "";
        fprintf(out, "  nfs errors:");
        for (unsigned k = 0; k < cnt; k++) {
            const struct nfs_rpc_proc *p = s->proc[ids[k]];
            for (uint32_t e = 0; e < p->nstatus; e++) {
                if (nfs_rpc_status_expected(ids[k], p->status[e].code))
                    continue;          /* named in the headline, not an error */
                fprintf(out, "%s %s %s x%llu", sep, nfs_proc_name(ids[k]),
                        nfs_status_name(p->status[e].code, name, sizeof name),
                        (unsigned long long)p->status[e].n);
                sep = ",";
            }
            if (p->status_other) {
                fprintf(out, "%s %s other x%llu", sep, nfs_proc_name(ids[k]),
                        (unsigned long long)p->status_other);
                sep = ",";
            }
        }
        fputc('\n', out);
    }
    /* an op's latency, split into what it truly is (nfs_op_split) */
    for (unsigned k = 0; k < NFS_SPLIT__COUNT; k++) {
        const struct nfs_op_split *sp = &s->split[k];
        if (!sp->ops)
            continue;
        double nops = (double)sp->ops;
        fprintf(out, "  %s: op mean %s = slowest RPC's round trip %s (server+network) + queued "
                "before send %s", nfs_op_split_name(k), units_fmt_ns(a, sizeof a, (double)sp->lat_ns / nops),
                units_fmt_ns(b, sizeof b, (double)sp->rtt_ns / nops),
                units_fmt_ns(c, sizeof c, (double)sp->queued_ns / nops));
        if (sp->late_ns)
            fprintf(out, " + issued late %s", units_fmt_ns(a, sizeof a, (double)sp->late_ns / nops));
        fprintf(out, " + client %s (%llu ops)\n",
                units_fmt_ns(d, sizeof d, (double)nfs_op_split_client(sp) / nops),
                (unsigned long long)sp->ops);
    }
}

/* 1 when the client's own time is most of what separates the ops' latency
 * from their round trips (not the wait before send or a late issue). */
static int split_client_dominates(const struct nfs_op_split *sp)
{
    uint64_t client = nfs_op_split_client(sp);
    return client >= sat_add_u64(sp->queued_ns, sp->late_ns);
}

static void split_html(FILE *out, const struct nfs_rpc_set *s)
{
    char a[32], b[32], c[32], d[32], e[32];
    int any = 0, client = 1;
    for (unsigned k = 0; k < NFS_SPLIT__COUNT; k++) {
        const struct nfs_op_split *sp = &s->split[k];
        if (!sp->ops)
            continue;
        if (!any)
            fprintf(out, "<table class=\"nfs-split\"><tr><th class=\"l\">op</th><th>ops</th>"
                    "<th>mean latency</th><th>slowest RPC's round trip</th><th>queued before send</th>"
                    "<th>issued late</th><th>client</th></tr>\n");
        any = 1;
        client &= split_client_dominates(sp);
        double n = (double)sp->ops;
        fprintf(out, "<tr><td class=\"l\">%s</td><td>%llu</td><td>%s</td><td>%s</td><td>%s</td>"
                "<td>%s</td><td>%s</td></tr>\n", nfs_op_split_name(k), (unsigned long long)sp->ops,
                units_fmt_ns(a, sizeof a, (double)sp->lat_ns / n),
                units_fmt_ns(b, sizeof b, (double)sp->rtt_ns / n),
                units_fmt_ns(c, sizeof c, (double)sp->queued_ns / n),
                units_fmt_ns(d, sizeof d, (double)sp->late_ns / n),
                units_fmt_ns(e, sizeof e, (double)nfs_op_split_client(sp) / n));
    }
    if (!any)
        return;
    fprintf(out, "</table>\n<p class=\"note\">Each op's time is its slowest RPC's (an op larger than "
            "rsize/wsize is several RPCs in parallel): the round trip from its last byte handed to the "
            "socket to its reply (server and network), the wait before that, and the rest. ");
    if (client)
        fprintf(out, "The difference between the op latency and the round trip is the client's time.</p>\n");
    else
        fprintf(out, "<span class=\"warn\" data-split=\"queued\">The difference between the op latency "
                "and the round trip is mostly the wait before send (the socket's buffer is full: the "
                "link or the server sets the pace) or a late issue, not the client's time.</span></p>\n");
}

void report_nfs_html(FILE *out, const struct run_result *r, uint32_t phase)
{
    struct nfs_view v;
    char q[4][32], name[48];

    if (!view_open(r, phase, &v))
        return;
    const struct nfs_rpc_set *s = v.s;
    fprintf(out, "<h3>NFS RPCs</h3>\n<p class=\"note\" data-failed=\"%llu\">", (unsigned long long)v.errors);
    headline(out, &v);
    fprintf(out, ".</p>\n");
    fprintf(out, "<table class=\"nfs\"><tr><th class=\"l\">rpc</th><th>calls</th><th>errors</th>"
            "<th>rtt p50</th><th>rtt p99</th><th>op p50</th><th>op p99</th>"
            "<th class=\"l\">statuses</th></tr>\n");
    for (unsigned k = 0; k < v.cnt; k++) {
        const struct nfs_rpc_proc *p = s->proc[v.ids[k]];
        int op = row_cells(&v, k, q);
        fprintf(out, "<tr><td class=\"l\">%s</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td>",
                nfs_proc_name(v.ids[k]), (unsigned long long)p->calls, (unsigned long long)p->errors, q[0], q[1]);
        fprintf(out, "<td>%s</td><td>%s</td>", op ? q[2] : "-", op ? q[3] : "-");
        fprintf(out, "<td class=\"l\">");
        for (uint32_t x = 0; x < p->nstatus; x++)
            fprintf(out, "%s%s x%llu", x ? ", " : "",
                    nfs_status_name(p->status[x].code, name, sizeof name),
                    (unsigned long long)p->status[x].n);
        if (p->status_other)
            fprintf(out, "%sother x%llu", p->nstatus ? ", " : "",
                    (unsigned long long)p->status_other);
        fprintf(out, "</td></tr>\n");
    }
    fprintf(out, "</table>\n");
    split_html(out, s);
}
