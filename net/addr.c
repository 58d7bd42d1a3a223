/* addr: HOST:PORT of a listening socket (see addr.h).  libuv's literal
 * parsers decide what a host is, IPv4 first, so the programs agree with
 * the library that binds the address. */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "net/addr.h"

int addr_parse_listen(const char *s, struct sockaddr_storage *ss)
{
    char host[256];
    const char *colon = strrchr(s, ':');
    char *end;
    long port;
    size_t hl;

    if (!colon)
        return -EINVAL;
    hl = (size_t)(colon - s);
    if (hl == 0 || hl >= sizeof host)
        return -EINVAL;
    memcpy(host, s, hl);
    host[hl] = '\0';
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    port = strtol(colon + 1, &end, 10);
    if (*end || end == colon + 1 || port < 0 || port > 65535)
        return -EINVAL;
    if (uv_ip4_addr(host, (int)port, (struct sockaddr_in *)ss) == 0)
        return 0;
    if (uv_ip6_addr(host, (int)port, (struct sockaddr_in6 *)ss) == 0)
        return 0;
    return -EINVAL;
}

int addr_resolve(uv_loop_t *loop, const char *s, struct sockaddr_storage *ss)
{
    char host[256];
    const char *colon = strrchr(s, ':');
    size_t hl = colon ? (size_t)(colon - s) : 0;
    uv_getaddrinfo_t gai;
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    int bracket = s[0] == '[';
    int rc;

    if (!colon || hl == 0 || hl >= sizeof host || !colon[1] || (bracket && hl < 3))
        return -EINVAL;
    memcpy(host, bracket ? s + 1 : s, bracket ? hl - 2 : hl);
    host[bracket ? hl - 2 : hl] = '\0';
    if ((rc = uv_getaddrinfo(loop, &gai, NULL, host, colon + 1, &hints)) < 0)
        return rc;
    memcpy(ss, gai.addrinfo->ai_addr, gai.addrinfo->ai_addrlen);
    uv_freeaddrinfo(gai.addrinfo);
    return 0;
}
