/* tcpdiag: see tcpdiag.h. */
#include "agent/tcpdiag.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TCP_STATE_ESTABLISHED 1
#define RECV_BUF (32 * 1024)
#define RECV_ROUNDS_MAX 100000     /* a dump of millions of sockets still ends */

/* The tcp_info attribute of one answer into the matching slot. */
static void take(const struct inet_diag_msg *m, size_t len, const uint64_t *inode, size_t n,
                 uint64_t *rx, uint64_t *tx, uint8_t *found)
{
    const struct rtattr *a = (const struct rtattr *)(const void *)(m + 1);
    size_t left = len > sizeof *m ? len - sizeof *m : 0;
    size_t i;

    for (i = 0; i < n && inode[i] != m->idiag_inode; i++)
        ;
    if (i == n)
        return;
    found[i] = 1;
    for (; RTA_OK(a, left); a = RTA_NEXT(a, left)) {
        const struct tcp_info *ti = RTA_DATA(a);
        size_t have = RTA_PAYLOAD(a);
        if (a->rta_type != INET_DIAG_INFO)
            continue;
        /* older kernels send a shorter tcp_info: read only what is there */
        if (have >= offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof ti->tcpi_bytes_acked)
            memcpy(&tx[i], (const char *)ti + offsetof(struct tcp_info, tcpi_bytes_acked), 8);
        if (have >= offsetof(struct tcp_info, tcpi_bytes_received) + sizeof ti->tcpi_bytes_received)
            memcpy(&rx[i], (const char *)ti + offsetof(struct tcp_info, tcpi_bytes_received), 8);
    }
}

static int dump(int family, const uint64_t *inode, size_t n, uint64_t *rx, uint64_t *tx,
                uint8_t *found)
{
    struct {
        struct nlmsghdr nh;
        struct inet_diag_req_v2 req;
    } q;
    struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
    _Alignas(struct nlmsghdr) char buf[RECV_BUF];
    int fd, rc = 0;

    memset(&q, 0, sizeof q);
    q.nh.nlmsg_len = sizeof q;
    q.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    q.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    q.req.sdiag_family = (uint8_t)family;
    q.req.sdiag_protocol = IPPROTO_TCP;
    q.req.idiag_states = 1u << TCP_STATE_ESTABLISHED;
    q.req.idiag_ext = 1u << (INET_DIAG_INFO - 1);
    fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0)
        return -errno;
    if (sendto(fd, &q, sizeof q, 0, (struct sockaddr *)&sa, sizeof sa) < 0) {
        rc = -errno;
        goto out;
    }
    for (int round = 0; round < RECV_ROUNDS_MAX; round++) {
        ssize_t got = recv(fd, buf, sizeof buf, 0);
        size_t left;
        const struct nlmsghdr *h = (const struct nlmsghdr *)(const void *)buf;
        if (got < 0) {
            rc = errno == EINTR ? 0 : -errno;
            if (rc)
                goto out;
            continue;
        }
        left = (size_t)got;
        for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
            if (h->nlmsg_type == NLMSG_DONE)
                goto out;
            if (h->nlmsg_type == NLMSG_ERROR) {
                rc = -EPROTO;
                goto out;
            }
            if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY && h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
                take(NLMSG_DATA(h), h->nlmsg_len - NLMSG_LENGTH(0), inode, n, rx, tx, found);
        }
    }
out:
    close(fd);
    return rc;
}

int tcpdiag_bytes(const uint64_t *inode, size_t n, uint64_t *rx, uint64_t *tx, uint8_t *found)
{
    int rc;
    memset(rx, 0, n * sizeof *rx);
    memset(tx, 0, n * sizeof *tx);
    memset(found, 0, n);
    if (n == 0)
        return 0;
    rc = dump(AF_INET, inode, n, rx, tx, found);
    if (rc == 0)
        rc = dump(AF_INET6, inode, n, rx, tx, found);
    return rc;
}
