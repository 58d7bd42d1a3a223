/* client_report: see client_report.h. */
#include "coordinator/report/client_report.h"

#include <stdint.h>
#include <string.h>
#include "common/units.h"
#include "coordinator/result/client_result.h"

static const struct host_sample *host_of(const struct run_result *r, uint32_t phase, uint32_t a)
{
    const struct client_agent *ca = client_result_agent(r, phase, a);
    return ca && ca->host.present ? &ca->host : NULL;
}

int client_report_cpu_bound(const struct run_result *r, uint32_t phase, uint32_t a)
{
    double busy;
    uint32_t limit;
    const char *rule;
    return client_result_cpu_bound(&r->phases[phase].agents[a], host_of(r, phase, a), &busy, &limit,
                                   &rule);
}

int client_report_nic_bound(const struct run_result *r, uint32_t phase, uint32_t a)
{
    double pct;
    return client_result_nic_bound(&r->phases[phase].agents[a], host_of(r, phase, a), &pct);
}

int client_report_faster(const struct run_result *r, uint32_t phase, uint32_t a, struct client_fast *f)
{
    return client_cap_faster(&r->phases[phase].agents[a], host_of(r, phase, a), r->agents[a].client_cap_bps, f);
}

int client_report_bound_lines(FILE *out, const struct run_result *r, uint32_t phase, uint32_t a,
                              const char *host)
{
    const struct agent_phase *ap = &r->phases[phase].agents[a];
    const struct host_sample *h = host_of(r, phase, a);
    struct client_fast fast;
    double busy, pct;
    uint32_t limit;
    const char *rule;
    int n = 0;

    if (client_result_cpu_bound(ap, h, &busy, &limit, &rule)) {
        if (strcmp(rule, "threads") == 0)
            fprintf(out, "warning: agent %u (%s) client-bound: CPU %.2f cores busy, %.0f%% of %u "
                    "(rule: one core per job thread)\n", r->agents[a].id, host, busy,
                    busy / limit * 100.0, limit);
        else
            fprintf(out, "warning: agent %u (%s) client-bound: CPU %.2f of %u cores busy "
                    "(%.0f%%; rule: the cores it may use)\n", r->agents[a].id, host, busy, limit,
                    busy / limit * 100.0);
        n++;
    }
    if (client_result_nic_bound(ap, h, &pct)) {
        fprintf(out, "warning: agent %u (%s) NIC-bound: %.0f%% of %s's %u Mbit/s link\n",
                r->agents[a].id, host, pct, h->nic, h->speed_mbps);
        n++;
    }
    if (client_report_faster(r, phase, a, &fast)) {
        char text[160], rate[32];
        client_cap_text(&fast, text, sizeof text);
        units_fmt_rate(rate, sizeof rate, fast.read_bps, 1024);
        fprintf(out, "warning: agent %u (%s) read %s, %s\n", r->agents[a].id, host, rate, text);
        n++;
    }
    return n;
}

/* Distinct notes, each once with how many agents gave it; at most
 * CLIENT_REPORT_AGENTS_MAX of them (per-agent directories make many). */
static void note_lines(FILE *out, const struct run_result *r, uint32_t phase)
{
    uint32_t shown = 0, more = 0;

    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct client_agent *ca = client_result_agent(r, phase, a);
        uint32_t same = 0, seen = 0;
        if (!ca || !ca->note[0])
            continue;
        for (uint32_t b = 0; b < r->nagents; b++) {
            const struct client_agent *cb = client_result_agent(r, phase, b);
            if (cb && strcmp(cb->note, ca->note) == 0) {
                same++;
                seen |= b < a;
            }
        }
        if (seen)
            continue;
        if (shown++ == CLIENT_REPORT_AGENTS_MAX) {
            shown--;
            more++;
            continue;
        }
        if (same == 1)
            fprintf(out, "note: agent %u: %s\n", r->agents[a].id, ca->note);
        else
            fprintf(out, "note: %u agents: %s\n", same, ca->note);
    }
    if (more)
        fprintf(out, "note: ... and %u more notes (see the JSON)\n", more);
}

void client_report_proxy_text(const struct proxy_sample *p, const char *nic, double secs, char *out,
                              size_t len)
{
    double cpu = (double)(p->cpu_user_us + p->cpu_sys_us) / 1e6;
    char rd[32], wr[32];
    int n;

    units_fmt_bytes(rd, sizeof rd, (double)p->rx_bytes, 1024);
    units_fmt_bytes(wr, sizeof wr, (double)p->tx_bytes, 1024);
    n = snprintf(out, len, "%s (pid %u) on port %u: CPU %.2f s user %.2f s sys (%.1f%% of a core), "
                 "%u connection%s%s%s, received %s sent %s", p->name[0] ? p->name : "?", p->pid,
                 p->port, (double)p->cpu_user_us / 1e6, (double)p->cpu_sys_us / 1e6,
                 secs > 0 ? cpu / secs * 100.0 : 0.0, p->conns, p->conns == 1 ? "" : "s",
                 p->remotes[0] ? " to " : "", p->remotes, rd, wr);
    if (n > 0 && (size_t)n < len && p->route_host[0])
        snprintf(out + n, len - (size_t)n, ", NIC %s on the route to %s", nic && nic[0] ? nic : "?",
                 p->route_host);
}

/* Each agent's local NFS proxy, and once why its round trips mislead. */
static void proxy_lines(FILE *out, const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    uint32_t shown = 0, more = 0, first = UINT32_MAX;

    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct client_agent *ca = client_result_agent(r, phase, a);
        const struct agent_phase *ap = &ph->agents[a];
        char line[512];
        if (!ca || !ca->proxy.present)
            continue;
        if (first == UINT32_MAX)
            first = a;
        if (shown++ == CLIENT_REPORT_AGENTS_MAX) {
            shown--;
            more++;
            continue;
        }
        client_report_proxy_text(&ca->proxy, ca->host.present ? ca->host.nic : "",
                                 (double)(ap->duration_ns ? ap->duration_ns : ph->duration_ns) / 1e9,
                                 line, sizeof line);
        fprintf(out, "proxy: agent %u: %s\n", r->agents[a].id, line);
    }
    if (more)
        fprintf(out, "proxy: ... and %u more agents (see the JSON)\n", more);
    if (first != UINT32_MAX)
        fprintf(out, "note: round trips (mountstats rtt, the nfs engine's rtt) stop at the local proxy "
                "(%s on port %u), not at the file system\n",
                client_result_agent(r, phase, first)->proxy.name,
                client_result_agent(r, phase, first)->proxy.port);
}

static void op_line(FILE *out, const struct ms_op *o, double secs)
{
    char kb[32];
    double per = o->ops ? 1.0 / (double)o->ops : 0;

    units_fmt_bytes(kb, sizeof kb, (double)(o->bytes_sent + o->bytes_recv), 1024);
    fprintf(out, "  %-12s %9llu ops %8.1f/s %9s rtt %.3f exe %.3f queue %.3f ms/op retrans %llu "
            "timeouts %llu errors %llu\n", o->name, (unsigned long long)o->ops,
            secs > 0 ? (double)o->ops / secs : 0.0, kb, (double)o->rtt_ms * per,
            (double)o->execute_ms * per, (double)o->queue_ms * per,
            (unsigned long long)(o->ntrans > o->ops ? o->ntrans - o->ops : 0),
            (unsigned long long)o->timeouts, (unsigned long long)o->errors);
}

void client_report_text(FILE *out, const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    uint32_t shown = 0, more = 0;

    note_lines(out, r, phase);
    proxy_lines(out, r, phase);
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct client_agent *ca = client_result_agent(r, phase, a);
        const struct agent_phase *ap = &ph->agents[a];
        double secs = (double)(ap->duration_ns ? ap->duration_ns : ph->duration_ns) / 1e9;
        if (!ca || !ca->ms)
            continue;
        if (shown++ == CLIENT_REPORT_AGENTS_MAX) {
            more++;
            shown--;
            continue;
        }
        fprintf(out, "mountstats: agent %u %s: xprt sends %llu recvs %llu bad_xids %llu connects %llu "
                "backlog %.2f\n", r->agents[a].id, ca->mount,
                (unsigned long long)ca->ms->xprt.sends, (unsigned long long)ca->ms->xprt.recvs,
                (unsigned long long)ca->ms->xprt.bad_xids, (unsigned long long)ca->ms->xprt.connects,
                ca->ms->xprt.sends ? (double)ca->ms->xprt.backlog_u / (double)ca->ms->xprt.sends : 0.0);
        for (uint32_t i = 0; i < ca->ms->nops; i++)
            if (ca->ms->op[i].ops || ca->ms->op[i].errors || ca->ms->op[i].timeouts)
                op_line(out, &ca->ms->op[i], secs);
    }
    if (more)
        fprintf(out, "mountstats: ... and %u more agents (see the JSON)\n", more);
}
