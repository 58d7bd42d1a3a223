/* msg_client: see msg_client.h.  Every counter is a u64 delta, every time
 * a double >= 0 (the generic decoder's F_DOUBLE check); "ops" is an array
 * of at most MS_OPS_MAX maps. */
#include "proto/msg_client.h"
#include "proto/mp.h"

#include <string.h>

const struct field msg_host_fields[] = {
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
const size_t msg_host_nfields = NELEM(msg_host_fields);

const struct field msg_ms_fields[] = {
    FSTR(struct ms_sample, "mount", mount),
    FOPTSTR(struct ms_sample, "note", note),
};
const size_t msg_ms_nfields = NELEM(msg_ms_fields);

const struct field msg_proxy_fields[] = {
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
const size_t msg_proxy_nfields = NELEM(msg_proxy_fields);

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

int msg_client_host_sent(const struct host_sample *h)
{
    return h->present != 0;
}

int msg_client_ms_sent(const struct ms_sample *m)
{
    return m->present || m->note[0];
}

int msg_client_proxy_sent(const struct proxy_sample *p)
{
    return p->present != 0;
}

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

int msg_client_host_check(const struct host_sample *h, char *why, size_t len)
{
    if (!msg_client_word(h->nic))
        return mp_fail(why, len, "'host.nic' is not an interface name");
    return 0;
}

int msg_client_ms_check(const struct ms_sample *m, char *why, size_t len)
{
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

int msg_client_proxy_check(const struct proxy_sample *p, char *why, size_t len)
{
    if (!printable(p->name) || !printable(p->remotes) || !printable(p->route_host))
        return mp_fail(why, len, "'proxy' name, remotes or route_host holds a control byte");
    return 0;
}
