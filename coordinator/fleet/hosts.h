/* hosts: the agents a user lists, --agents A,B or a --hosts FILE.
 *
 * A hosts file holds host[:port] [label=NAME ...] per line (fio's
 * "host,port" too; '#' starts a comment).  Each line is read whole and
 * checked before anything is spawned or dialled: a port of 1 to 65535, the
 * agent's own label rule, no NUL byte, at most HOSTS_LINE_MAX bytes. */
#ifndef NFSTORM_HOSTS_H
#define NFSTORM_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#define HOSTS_DEFAULT_PORT "7878"

/* The port of an agent address a user wrote (host:port, [v6]:port): 1 to
 * 65535, all digits.  0, or -EINVAL. */
int hosts_port_ok(const char *a);

/* Append s[0..len) to *addrs (*n of them), with HOSTS_DEFAULT_PORT when
 * it names no port. */
void hosts_add_addr(char ***addrs, uint32_t *n, const char *s, size_t len);

/* Read path's hosts into *addrs and *labels (labels[i]: host i's labels,
 * comma-joined, or NULL), at most max.  0, or -EINVAL with a one-line error
 * naming path:line in err. */
int hosts_read(const char *path, uint32_t max, char ***addrs, char ***labels, uint32_t *n, char *err,
               size_t errlen);

#endif
