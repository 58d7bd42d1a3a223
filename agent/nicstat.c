/* nicstat: see nicstat.h. */
#include "agent/nicstat.h"
#include "agent/procfs.h"
#include "net/peer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /proc/net/dev is ~150 bytes per interface: this holds hundreds. */
#define NETDEV_READ_MAX (256 * 1024)

int nicstat_parse(const char *text, const char *ifname, uint64_t *rx, uint64_t *tx)
{
    size_t nlen = strlen(ifname);

    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        const char *end = nl ? nl : p + strlen(p);
        const char *q = p;

        while (q < end && *q == ' ')
            q++;
        if ((size_t)(end - q) > nlen && memcmp(q, ifname, nlen) == 0 && q[nlen] == ':') {
            /* "name: rx_bytes packets errs drop fifo frame compressed
             * multicast tx_bytes ..." */
            uint64_t v[9];
            char *e;
            q += nlen + 1;
            for (int i = 0; i < 9; i++) {
                while (q < end && *q == ' ')
                    q++;
                if (q >= end || *q < '0' || *q > '9')
                    return -EBADMSG;
                errno = 0;
                v[i] = strtoull(q, &e, 10);
                if (errno || e > end || (e < end && *e != ' '))
                    return -EBADMSG;
                q = e;
            }
            *rx = v[0];
            *tx = v[8];
            return 0;
        }
        p = nl ? nl + 1 : end;
    }
    return -ENOENT;
}

int nicstat_iface_of(const struct sockaddr *sa, char *name, size_t len)
{
    struct ifaddrs *ifs, *i;
    int rc = -ENOENT;

    if (getifaddrs(&ifs) < 0)
        return -errno;
    for (i = ifs; i; i = i->ifa_next) {
        /* peer_same_ip reads no further than the family's address */
        if (i->ifa_addr && i->ifa_name &&
            peer_same_ip((const struct sockaddr_storage *)(const void *)i->ifa_addr,
                         (const struct sockaddr_storage *)(const void *)sa)) {
            snprintf(name, len, "%s", i->ifa_name);
            rc = 0;
            break;
        }
    }
    freeifaddrs(ifs);
    return rc;
}

int nicstat_route_to(const char *host, char *name, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    int fd, rc;

    memset(&ss, 0, sizeof ss);
    if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
        ss.ss_family = AF_INET;
        ((struct sockaddr_in *)&ss)->sin_port = htons(2049);
        sl = sizeof(struct sockaddr_in);
    } else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
        ss.ss_family = AF_INET6;
        ((struct sockaddr_in6 *)&ss)->sin6_port = htons(2049);
        sl = sizeof(struct sockaddr_in6);
    } else {
        return -EINVAL;
    }
    fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    /* a UDP connect only consults the routing table */
    if (connect(fd, (struct sockaddr *)&ss, sl) < 0) {
        rc = -errno;
        close(fd);
        return rc;
    }
    sl = sizeof ss;
    rc = getsockname(fd, (struct sockaddr *)&ss, &sl) < 0 ? -errno : 0;
    close(fd);
    return rc ? rc : nicstat_iface_of((struct sockaddr *)&ss, name, len);
}

int nicstat_read(const char *ifname, uint64_t *rx, uint64_t *tx)
{
    char *buf = procfs_read("/proc/net/dev", NETDEV_READ_MAX);
    int rc = buf ? nicstat_parse(buf, ifname, rx, tx) : -errno;
    free(buf);
    return rc;
}

uint32_t nicstat_speed_mbps(const char *ifname)
{
    const char *dir = getenv(NICSTAT_TEST_SYSFS_ENV);
    char path[512], line[32];
    FILE *f;
    long v = 0;

    if (!ifname[0] || strchr(ifname, '/') || strlen(ifname) >= IFNAMSIZ)
        return 0;
    if (!dir || !dir[0] || strlen(dir) > 256)
        dir = "/sys/class/net";
    snprintf(path, sizeof path, "%s/%s/speed", dir, ifname);
    if (!(f = fopen(path, "r")))
        return 0;
    /* reading speed of a link that is down fails with EINVAL */
    if (fgets(line, sizeof line, f))
        v = strtol(line, NULL, 10);
    fclose(f);
    return v > 0 && v < 100000000 ? (uint32_t)v : 0;
}
