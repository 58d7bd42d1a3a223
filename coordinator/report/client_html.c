/* client_html: see client_html.h. */
#include "coordinator/report/client_html.h"

#include "common/units.h"
#include "coordinator/report/client_report.h"
#include "coordinator/result/client_result.h"
#include "coordinator/report/svg.h"

/* The host row of agent a when it has one (1), else 0. */
static int host_row(FILE *out, const struct run_result *r, uint32_t phase, uint32_t a, const struct client_agent *ca)
{
    const struct agent_phase *ap = &r->phases[phase].agents[a];
    double secs = (double)ap->duration_ns / 1e9, busy, pct;
    uint32_t limit;
    const char *rule;
    char rx[32], tx[32];
    int cpu, nic;

    if (!ca->host.present || !ap->done)
        return 0;
    cpu = client_result_cpu_bound(ap, &ca->host, &busy, &limit, &rule);
    nic = client_result_nic_bound(ap, &ca->host, &pct);
    fprintf(out, "<tr><td>%u</td><td class=\"l\">", r->agents[a].id);
    svg_escape(out, r->agents[a].host);
    fprintf(out, "</td><td>%.2f</td><td>%u (%s)</td><td%s>%.0f%%</td><td class=\"l\">",
            busy, limit, rule, cpu ? " class=\"warn\"" : "", limit ? busy / limit * 100.0 : 0.0);
    svg_escape(out, ca->host.nic[0] ? ca->host.nic : "-");
    units_fmt_bytes(rx, sizeof rx, secs > 0 ? (double)ca->host.rx_bytes / secs : 0, 1024);
    units_fmt_bytes(tx, sizeof tx, secs > 0 ? (double)ca->host.tx_bytes / secs : 0, 1024);
    fprintf(out, "</td><td>%s/s</td><td>%s/s</td>", rx, tx);
    if (ca->host.speed_mbps)
        fprintf(out, "<td%s>%u Mbit/s (%.0f%%)</td>", nic ? " class=\"warn\"" : "", ca->host.speed_mbps, pct);
    else
        fprintf(out, "<td>unknown</td>");
    fprintf(out, "<td class=\"l\">%s%s%s</td></tr>\n", cpu ? "client-bound (CPU)" : "",
            cpu && nic ? ", " : "", nic ? "NIC-bound" : "");
    return 1;
}

/* Reads faster than an agent's link or --client-cap: a warning each, above
 * the table, since they say the phase's figure is not the storage's. */
static void faster_lines(FILE *out, const struct run_result *r, uint32_t phase)
{
    for (uint32_t a = 0; a < r->nagents; a++) {
        struct client_fast f;
        char text[160], rate[32];
        if (!r->phases[phase].agents[a].done || !client_report_faster(r, phase, a, &f))
            continue;
        client_cap_text(&f, text, sizeof text);
        units_fmt_rate(rate, sizeof rate, f.read_bps, 1024);
        fprintf(out, "<p class=\"warn\">agent %u (", r->agents[a].id);
        svg_escape(out, r->agents[a].host);
        fprintf(out, ") read %s, %s</p>\n", rate, text);
    }
}

/* Agent a's mountstats rows when it has them (1), else 0. */
static int ms_rows(FILE *out, const struct run_result *r, uint32_t phase, uint32_t a, const struct client_agent *ca)
{
    (void)phase;
    for (uint32_t i = 0; ca->ms && i < ca->ms->nops; i++) {
        const struct ms_op *o = &ca->ms->op[i];
        double per = o->ops ? 1.0 / (double)o->ops : 0;
        if (!o->ops && !o->errors && !o->timeouts)
            continue;
        fprintf(out, "<tr><td>%u</td><td class=\"l\">", r->agents[a].id);
        svg_escape(out, ca->mount);
        fprintf(out, "</td><td class=\"l\">");
        svg_escape(out, o->name);
        fprintf(out, "</td><td>%llu</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%llu</td>"
                "<td>%llu</td><td>%llu</td></tr>\n", (unsigned long long)o->ops,
                (double)o->rtt_ms * per, (double)o->execute_ms * per, (double)o->queue_ms * per,
                (unsigned long long)(o->ntrans > o->ops ? o->ntrans - o->ops : 0),
                (unsigned long long)o->timeouts, (unsigned long long)o->errors);
    }
    return ca->ms != NULL;
}

/* head, then rows() of each agent that has them (the first
 * CLIENT_HTML_AGENTS_MAX), then the table's end. */
static void agent_table(FILE *out, const struct run_result *r, uint32_t phase, const char *head,
                        int (*rows)(FILE *, const struct run_result *, uint32_t, uint32_t, const struct client_agent *))
{
    uint32_t shown = 0;

    fputs(head, out);
    for (uint32_t a = 0; a < r->nagents && shown < CLIENT_HTML_AGENTS_MAX; a++) {
        const struct client_agent *ca = client_result_agent(r, phase, a);
        shown += ca && rows(out, r, phase, a, ca);
    }
    fputs("</table>\n", out);
}

/* The local NFS proxies: the phase's line, then per interval its CPU
 * share and connections (the first PROXY_HTML_IV_MAX intervals; the JSON
 * has them all). */
#define PROXY_HTML_IV_MAX 120
static void proxy_rows(FILE *out, const struct run_result *r, uint32_t phase)
{
    const struct phase_result *ph = &r->phases[phase];
    uint32_t shown = 0, any = 0;

    for (uint32_t a = 0; a < r->nagents && shown < CLIENT_HTML_AGENTS_MAX; a++) {
        const struct client_agent *ca = client_result_agent(r, phase, a);
        const struct agent_phase *ap = &ph->agents[a];
        double secs = (double)(ap->duration_ns ? ap->duration_ns : ph->duration_ns) / 1e9;
        double iv_s = (double)ph->interval_ms / 1e3;
        char line[512];
        if (!ca || !ca->proxy.present)
            continue;
        if (!any++)
            fprintf(out, "<p class=\"note\">Round trips (mountstats rtt, the nfs engine's rtt) stop at "
                    "the local proxy, not at the file system.</p>\n<table><tr><th>id</th>"
                    "<th class=\"l\">local NFS proxy</th><th class=\"l\">per interval: CPU %% of a core "
                    "/ connections</th></tr>\n");
        client_report_proxy_text(&ca->proxy, ca->host.present ? ca->host.nic : "", secs, line,
                                 sizeof line);
        fprintf(out, "<tr><td>%u</td><td class=\"l\">", r->agents[a].id);
        svg_escape(out, line);
        fprintf(out, "</td><td class=\"l\">");
        for (uint32_t k = 0; k < ca->niv && k < PROXY_HTML_IV_MAX; k++) {
            const struct client_iv *iv = client_result_iv(r, phase, a, k);
            const struct proxy_sample *p = iv ? iv->proxy : NULL;
            if (p)
                fprintf(out, "%s%.1f/%u", k ? " " : "",
                        iv_s > 0 ? (double)(p->cpu_user_us + p->cpu_sys_us) / 1e6 / iv_s * 100.0 : 0.0,
                        p->conns);
            else
                fprintf(out, "%s-", k ? " " : "");
        }
        fprintf(out, "</td></tr>\n");
        shown++;
    }
    if (any)
        fprintf(out, "</table>\n");
}

void client_html_section(FILE *out, const struct run_result *r, uint32_t phase)
{
    uint32_t nhost = 0, nms = 0, npx = 0;

    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct client_agent *ca = client_result_agent(r, phase, a);
        nhost += ca && ca->host.present;
        nms += ca && ca->ms;
        npx += ca && ca->proxy.present;
    }
    if (!nhost && !nms && !npx)
        return;
    fprintf(out, "<h3>Client</h3>\n");
    faster_lines(out, r, phase);
    if (nhost)
        agent_table(out, r, phase, "<table><tr><th>id</th><th class=\"l\">host</th><th>cpu busy (cores)</th>"
                    "<th>limit (rule)</th><th>of limit</th><th class=\"l\">nic</th><th>rx</th><th>tx</th>"
                    "<th>link</th><th class=\"l\">bound</th></tr>\n", host_row);
    proxy_rows(out, r, phase);
    for (uint32_t a = 0; a < r->nagents; a++) {
        const struct client_agent *ca = client_result_agent(r, phase, a);
        if (ca && ca->note[0]) {
            fprintf(out, "<p class=\"note\">agent %u: ", r->agents[a].id);
            svg_escape(out, ca->note);
            fprintf(out, "</p>\n");
            break;      /* one is enough: the text and JSON have each */
        }
    }
    if (nms)
        agent_table(out, r, phase, "<table><tr><th>id</th><th class=\"l\">mount</th><th class=\"l\">NFS op</th>"
                    "<th>ops</th><th>rtt ms/op</th><th>execute ms/op</th><th>queue ms/op</th>"
                    "<th>retrans</th><th>timeouts</th><th>errors</th></tr>\n", ms_rows);
}
