/* hosts: see hosts.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "coordinator/fleet/hosts.h"
#include "proto/msg.h"
#include "common/why.h"

/* A wrapped port (99999 dialled 34463) or port 0 would
 * connect somewhere else than the message names.  0, or -EINVAL. */
int hosts_port_ok(const char *a)
{
    const char *colon = strrchr(a, ':');
    char *end;
    long port;
    if (!colon || (a[0] == '[' && colon < strchr(a, ']')))
        return -EINVAL;
    errno = 0;
    port = strtol(colon + 1, &end, 10);
    return *end || end == colon + 1 || colon[1] == '-' || colon[1] == '+' || errno || port < 1 || port > 65535
               ? -EINVAL : 0;
}

void hosts_add_addr(char ***addrs, uint32_t *n, const char *s, size_t len)
{
    char *a = xmalloc(len + sizeof HOSTS_DEFAULT_PORT + 2);
    memcpy(a, s, len);
    a[len] = '\0';
    /* host without port (an IPv6 address needs [..]:port) */
    if (!strchr(a, ':') || (a[0] == '[' && a[len - 1] == ']'))
        strcat(a, ":" HOSTS_DEFAULT_PORT);
    *addrs = xrealloc(*addrs, (*n + 1) * sizeof **addrs);
    (*addrs)[(*n)++] = a;
}

/* A hosts file's line is read whole (getline), never in pieces: a piece of a
 * long line once became a host of its own, so 5000 bytes started 5 ssh
 * sessions.  Lines past this are refused, not cut. */
#define HOSTS_LINE_MAX 4096

int hosts_read(const char *path, uint32_t max, char ***addrs, char ***labels, uint32_t *n, char *err,
               size_t errlen)
{
    FILE *fp = fopen(path, "r");
    char *line = NULL, why[256], lab[MSG_LABELS_MAX];
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, status = 0;
    if (!fp)
        return why_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    while (status == 0 && (len = getline(&line, &cap, fp)) >= 0) {
        char *s = line, *e, *save = NULL;
        lineno++;
        if (len > HOSTS_LINE_MAX) {
            status = why_fail(err, errlen, "%s:%d: a line longer than %d bytes", path, lineno, HOSTS_LINE_MAX);
            break;
        }
        if (memchr(line, '\0', (size_t)len)) {
            status = why_fail(err, errlen, "%s:%d: a NUL byte in the line (not a text file?)", path, lineno);
            break;
        }
        line[strcspn(line, "#\r\n")] = '\0';
        while (*s == ' ' || *s == '\t')
            s++;
        for (e = s; *e && *e != ' ' && *e != '\t'; e++)
            ;
        if (e == s)
            continue;
        if (*n == max) {
            status = why_fail(err, errlen, "%s:%d: more than %u agents", path, lineno, max);
            break;
        }
        lab[0] = '\0';
        for (char *t = strtok_r(e, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
            size_t have = lab[0] ? strlen(lab) + 1 : 0;     /* with its ',' */
            if (strncmp(t, "label=", 6) != 0 || !t[6]) {
                status = why_fail(err, errlen, "%s:%d: unknown setting '%.64s' (want label=NAME)", path, lineno, t);
                break;
            }
            if (msg_labels_check(t + 6, why, sizeof why) < 0) {
                status = why_fail(err, errlen, "%s:%d: %s", path, lineno, why);
                break;
            }
            if (have + strlen(t + 6) >= MSG_LABELS_MAX) {
                status = why_fail(err, errlen, "%s:%d: labels longer than %d bytes in all", path, lineno,
                             MSG_LABELS_MAX - 1);
                break;
            }
            snprintf(lab + strlen(lab), sizeof lab - strlen(lab), "%s%s", have ? "," : "", t + 6);
        }
        if (status != 0)
            break;
        *labels = xrealloc(*labels, (*n + 1) * sizeof **labels);
        (*labels)[*n] = lab[0] ? xstrdup(lab) : NULL;
        /* fio's host list (--client=FILE) says "host,port" */
        char *comma = memchr(s, ',', (size_t)(e - s));
        if (comma && !memchr(s, ':', (size_t)(e - s)) && comma + 1 < e &&
            strspn(comma + 1, "0123456789") == (size_t)(e - comma - 1))
            *comma = ':';
        hosts_add_addr(addrs, n, s, (size_t)(e - s));
        if (hosts_port_ok((*addrs)[*n - 1]) < 0) {
            status = why_fail(err, errlen, "%s:%d: '%s': the port must be 1 to 65535", path, lineno, (*addrs)[*n - 1]);
            break;
        }
    }
    free(line);
    fclose(fp);
    if (status == 0 && *n == 0)
        return why_fail(err, errlen, "%s: no hosts in the file", path);
    return status;
}

