/* ctlsock: TOS, priority and thin-stream timeouts of control connections
 * (see ctlsock.h).  The family of the socket decides between IP_TOS and
 * IPV6_TCLASS; an IPv6 socket carrying IPv4 (a v4-mapped peer) gets both,
 * since the kernel reads IP_TOS for what it sends as IPv4. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "net/ctlsock.h"

#define CTLSOCK_PRIORITY 6   /* TC_PRIO_INTERACTIVE: pfifo_fast's band 0 */

int ctlsock_parse_tos(const char *s, int *tos)
{
    char *end;
    long v;

    if (!s || !*s)
        return -EINVAL;
    if (strcmp(s, "none") == 0) {
        *tos = CTLSOCK_TOS_NONE;
        return 0;
    }
    if (strcmp(s, "lowdelay") == 0) {
        *tos = CTLSOCK_TOS_DEFAULT;
        return 0;
    }
    if (strncmp(s, "dscp:", 5) == 0) {
        if (s[5] < '0' || s[5] > '9')
            return -EINVAL;
        v = strtol(s + 5, &end, 10);
        if (*end || v < 0 || v > 63)
            return -EINVAL;
        *tos = (int)(v << 2);
        return 0;
    }
    if (*s < '0' || *s > '9')
        return -EINVAL;
    v = strtol(s, &end, 0);
    if (*end || v < 0 || v > 255 || (v & 3))
        return -EINVAL;
    *tos = (int)v;
    return 0;
}

void ctlsock_tos_str(int tos, char *out, size_t outlen)
{
    if (tos < 0)
        snprintf(out, outlen, "none");
    else
        snprintf(out, outlen, "0x%02x", (unsigned)tos);
}

static int set_int(int fd, int level, int name, int v, int rc)
{
    if (setsockopt(fd, level, name, &v, sizeof v) < 0 && rc == 0)
        return -errno;
    return rc;
}

int ctlsock_mark(uv_tcp_t *t, int tos)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    uv_os_fd_t fd;
    int rc = 0;

    if (tos < 0)
        return 0;
    if ((rc = uv_fileno((uv_handle_t *)t, &fd)) < 0)
        return rc;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
        return -errno;
    /* The TOS first: setting it also sets the priority from it, which the
     * explicit SO_PRIORITY below then overrides. */
    if (ss.ss_family == AF_INET6) {
        rc = set_int(fd, IPPROTO_IPV6, IPV6_TCLASS, tos, rc);
        if (IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)&ss)->sin6_addr))
            rc = set_int(fd, IPPROTO_IP, IP_TOS, tos, rc);
    } else {
        rc = set_int(fd, IPPROTO_IP, IP_TOS, tos, rc);
    }
    rc = set_int(fd, SOL_SOCKET, SO_PRIORITY, CTLSOCK_PRIORITY, rc);
    rc = set_int(fd, IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS, 1, rc);
    return rc;
}
