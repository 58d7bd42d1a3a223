/* hostinfo: the agent's machine as results record it: kernel release, CPU
 * model and count, memory.  Sent once per connection in the welcome.
 *
 * The parsers are pure (text in, value out) so they are unit-tested on
 * fixture text; hostinfo_read does the reading.  Nothing here fails: what
 * cannot be read stays "" or 0 ("not known" in the report). */
#ifndef NFSTORM_HOSTINFO_H
#define NFSTORM_HOSTINFO_H

#include <stddef.h>
#include <stdint.h>

struct hostinfo {
    char kernel[128];        /* uname -r */
    char cpu_model[128];     /* the first "model name" of /proc/cpuinfo */
    uint64_t mem_bytes;      /* MemTotal of /proc/meminfo */
};

/* The CPU model of /proc/cpuinfo text: the first "model name" line (x86),
 * else "Model" or "Hardware" (ARM), spaces squeezed; "" if none.  out
 * always NUL-terminated (cut to outlen - 1). */
void hostinfo_parse_cpu_model(const char *cpuinfo, char *out, size_t outlen);
/* MemTotal of /proc/meminfo text, in bytes: 0 or -EINVAL if absent or bad. */
int hostinfo_parse_memtotal(const char *meminfo, uint64_t *bytes);
/* The "key: N kB" line of /proc/meminfo (MemTotal, MemAvailable), read
 * now, in bytes: 0, -EINVAL if absent or bad, or the read's -errno. */
int hostinfo_meminfo(const char *key, uint64_t *bytes);
/* Fill h from uname(2), /proc/cpuinfo and /proc/meminfo.  Blocking reads
 * of /proc only: cheap enough for the loop thread (once per connection). */
void hostinfo_read(struct hostinfo *h);

#endif
