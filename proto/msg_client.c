/* msg_client: see msg_client.h.  Every counter is a u64 delta, every time
 * a double >= 0 (the generic decoder's F_DOUBLE check); "ops" is an array
 * of at most MS_OPS_MAX maps. */
#include "proto/msg_client.h"
#include "proto/mp.h"

#include <string.h>

static const struct field host_fields[] = {
    FDOUBLE(struct host_sample, "cpu_user_s", cpu_user_s),
    FDOUBLE(struct host_sample, "cpu_sys_s", cpu_sys_s),
    FANYU32(struct host_sample, "cores", cores),
    FANYU32(struct host_sample, "threads", threads),
    FSTR(struct host_sample, "nic", nic),
    FANYU64(struct host_sample, "rx_bytes", rx_bytes),
    FANYU64(struct host_sample, "tx_bytes", tx_bytes),
    FANYU32(struct host_sample, "speed_mbps", speed_mbps),
    FOPTU32(struct host_sample, "nic_route", nic_route),
};

static const struct field ms_fields[] = {
    FSTR(struct ms_sample, "mount", mount),
    FOPTSTR(struct ms_sample, "note", note),
};

static const struct field proxy_fields[] = {
    FANYU32(struct proxy_sample, "pid", pid),
    FSTR(struct proxy_sample, "name", name),
    FU32(struct proxy_sample, "port", port, 1, 65535),
    FANYU64(struct proxy_sample, "cpu_user_us", cpu_user_us),
    FANYU64(struct proxy_sample, "cpu_sys_us", cpu_sys_us),
    FANYU32(struct proxy_sample, "conns", conns),
    FSTR(struct proxy_sample, "remotes", remotes),
    FANYU64(struct proxy_sample, "rx_bytes", rx_bytes),
    FANYU64(struct proxy_sample, "tx_bytes", tx_bytes),
    FOPTSTRNZ(struct proxy_sample, "route_host", route_host),
};

const struct field msg_xprt_fields[] = {
    FANYU64(struct ms_xprt, "connects", connects),
    FANYU64(struct ms_xprt, "sends", sends),
    FANYU64(struct ms_xprt, "recvs", recvs),
    FANYU64(struct ms_xprt, "bad_xids", bad_xids),
    FANYU64(struct ms_xprt, "req_u", req_u),
    FANYU64(struct ms_xprt, "backlog_u", backlog_u),
};
const size_t msg_xprt_nfields = NELEM(msg_xprt_fields);

const struct field msg_msop_fields[] = {
    FSTR(struct ms_op, "name", name),
    FANYU64(struct ms_op, "ops", ops),
    FANYU64(struct ms_op, "ntrans", ntrans),
    FANYU64(struct ms_op, "timeouts", timeouts),
    FANYU64(struct ms_op, "bytes_sent", bytes_sent),
    FANYU64(struct ms_op, "bytes_recv", bytes_recv),
    FANYU64(struct ms_op, "queue_ms", queue_ms),
    FANYU64(struct ms_op, "rtt_ms", rtt_ms),
    FANYU64(struct ms_op, "execute_ms", execute_ms),
    FANYU64(struct ms_op, "errors", errors),
};
const size_t msg_msop_nfields = NELEM(msg_msop_fields);

static int printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
            return 0;
    return 1;
}

int msg_client_word(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == ':' || *s == '-'))
            return 0;
    return 1;
}

static int host_sent(const void *p)
{
    return ((const struct host_sample *)p)->present != 0;
}

static int ms_sent(const void *p)
{
    const struct ms_sample *m = p;
    return m->present || m->note[0];
}

static int proxy_sent(const void *p)
{
    return ((const struct proxy_sample *)p)->present != 0;
}

static int host_accept(void *p, char *why, size_t len)
{
    struct host_sample *h = p;

    h->present = 1;
    if (!msg_client_word(h->nic))
        return mp_fail(why, len, "'host.nic' is not an interface name");
    return 0;
}

static int ms_accept(void *p, char *why, size_t len)
{
    struct ms_sample *m = p;

    m->present = m->mount[0] != '\0';
    if (!printable(m->mount) || !printable(m->note))
        return mp_fail(why, len, "'mountstats' mount or note holds a control byte");
    for (uint32_t i = 0; i < m->nops; i++) {
        if (!m->op[i].name[0] || !msg_client_word(m->op[i].name))
            return mp_fail(why, len, "'mountstats.ops[%u].name' is not an operation name", i);
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(m->op[i].name, m->op[j].name) == 0)
                return mp_fail(why, len, "'mountstats.ops' lists '%s' twice", m->op[i].name);
    }
    return 0;
}

static int proxy_accept(void *p, char *why, size_t len)
{
    struct proxy_sample *px = p;

    px->present = 1;
    if (!printable(px->name) || !printable(px->remotes) || !printable(px->route_host))
        return mp_fail(why, len, "'proxy' name, remotes or route_host holds a control byte");
    return 0;
}

const struct msg_client_map msg_client_maps[3] = {
    [F_HOST - F_HOST] = { host_fields, NELEM(host_fields), sizeof(struct host_sample),
                          host_sent, host_accept },
    [F_MSTATS - F_HOST] = { ms_fields, NELEM(ms_fields), sizeof(struct ms_sample),
                            ms_sent, ms_accept },
    [F_PROXY - F_HOST] = { proxy_fields, NELEM(proxy_fields), sizeof(struct proxy_sample),
                           proxy_sent, proxy_accept },
};
