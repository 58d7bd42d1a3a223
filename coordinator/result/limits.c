/* limits: the --limits FILE parser (limits.h).
 *
 * The file is INI, read by inih as plans are.  inih gives the handler no
 * line number, but when the handler refuses a line it returns the first
 * refused line's number: the handler records why, refuses, and the caller
 * puts "file:LINE:" in front.  A table maps each key to where its value
 * goes and what kind of value it takes, so docs/long-runs.md and the
 * parser list the same keys. */
#include "coordinator/result/limits.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/units.h"
#include "common/why.h"
#include "coordinator/result/input_file.h"

enum kind { K_TEXT, K_RATE, K_IOPS, K_SIZE, K_RATIO, K_MONEY, K_CURRENCY };

struct key {
    const char *section, *name;
    enum kind kind;
    size_t off;          /* offsetof the double (or char array) in struct limits */
};

#define F(m) offsetof(struct limits, m)
static const struct key keys[] = {
    { "limits", "name", K_TEXT, F(name) },
    { "limits", "client_throughput", K_RATE, F(client_bps) },
    { "limits", "client_iops", K_IOPS, F(client_iops) },
    { "limits", "fs_throughput", K_RATE, F(fs_bps) },
    { "limits", "fs_iops", K_IOPS, F(fs_iops) },
    { "limits", "read_metering", K_RATIO, F(read_metering) },
    { "limits", "write_metering", K_RATIO, F(write_metering) },
    { "credits", "initial", K_SIZE, F(credits_initial) },
    { "credits", "baseline_per_gib", K_RATE, F(baseline_per_gib_bps) },
    { "credits", "baseline_min", K_RATE, F(baseline_min_bps) },
    { "credits", "burst", K_RATE, F(burst_bps) },
    { "credits", "burst_per_tib", K_RATE, F(burst_per_tib_bps) },
    { "prices", "currency", K_CURRENCY, F(currency) },
    { "prices", "read_per_gb", K_MONEY, F(read_per_gb) },
    { "prices", "write_per_gb", K_MONEY, F(write_per_gb) },
    { "prices", "per_hour", K_MONEY, F(per_hour) },
};
#undef F

struct parse_ctx {
    struct limits *l;
    char why[256];       /* the first refused line's reason */
    int failed;
};

/* "1.5" + suffix: the multiplier of the suffix, or 0 if unknown. */
static double suffix_mult(const char *s, int *bits)
{
    static const struct { const char *sfx; double mult; int bits; } tab[] = {
        { "", 1, 0 }, { "b", 1, 0 },
        { "k", 1024.0, 0 }, { "kib", 1024.0, 0 }, { "kb", 1e3, 0 },
        { "m", 1048576.0, 0 }, { "mib", 1048576.0, 0 }, { "mb", 1e6, 0 },
        { "g", 1073741824.0, 0 }, { "gib", 1073741824.0, 0 }, { "gb", 1e9, 0 },
        { "t", 1099511627776.0, 0 }, { "tib", 1099511627776.0, 0 }, { "tb", 1e12, 0 },
        { "p", 1125899906842624.0, 0 }, { "pib", 1125899906842624.0, 0 }, { "pb", 1e15, 0 },
        { "bit", 1.0 / 8, 1 }, { "kbit", 1e3 / 8, 1 }, { "mbit", 1e6 / 8, 1 },
        { "gbit", 1e9 / 8, 1 }, { "tbit", 1e12 / 8, 1 },
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcasecmp(s, tab[i].sfx) == 0) {
            *bits = tab[i].bits;
            return tab[i].mult;
        }
    return 0;
}

int limits_parse_quantity(const char *s, int per_s, double *out)
{
    char sfx[16];
    char *end;
    size_t n;
    int bits = 0;
    double v, m;

    if (!s || !*s || *s == '-' || *s == '+')
        return -EINVAL;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0)
        return -EINVAL;
    n = strlen(end);
    if (n >= 2 && strcmp(end + n - 2, "/s") == 0) {
        if (!per_s)
            return -EINVAL;
        n -= 2;
    }
    if (n >= sizeof sfx)
        return -EINVAL;
    memcpy(sfx, end, n);
    sfx[n] = '\0';
    if ((m = suffix_mult(sfx, &bits)) == 0 || (bits && !per_s))
        return -EINVAL;
    v *= m;
    if (!isfinite(v) || v > 1e21)     /* a zettabyte: no storage service declares more */
        return -EINVAL;
    *out = v;
    return 0;
}

/* "1/3", "0.3333": a metering ratio, 0 < r <= 100. */
static int parse_ratio(const char *s, double *out)
{
    char *end;
    double a, b = 1;

    errno = 0;
    a = strtod(s, &end);
    if (end == s || errno)
        return -EINVAL;
    if (*end == '/') {
        const char *q = end + 1;
        b = strtod(q, &end);
        if (end == q || errno || b <= 0)
            return -EINVAL;
    }
    if (*end || !isfinite(a / b) || a / b <= 0 || a / b > 100)
        return -EINVAL;
    *out = a / b;
    return 0;
}

static int parse_money(const char *s, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < 0 || v > 1e9)
        return -EINVAL;
    *out = v;
    return 0;
}

static int refuse(struct parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(struct parse_ctx *c, const char *fmt, ...)
{
    va_list ap;
    if (!c->failed) {
        va_start(ap, fmt);
        vsnprintf(c->why, sizeof c->why, fmt, ap);
        va_end(ap);
    }
    c->failed = 1;
    return 0;           /* inih: a refused line; it returns the first one's number */
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    struct parse_ctx *c = user;
    const struct key *k = NULL;
    int known_section = 0;
    char *base = (char *)c->l;
    double *d;

    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (strcmp(section, keys[i].section) != 0)
            continue;
        known_section = 1;
        if (strcmp(name, keys[i].name) == 0)
            k = &keys[i];
    }
    if (!known_section)
        return refuse(c, "[%s]: unknown section (want [limits], [credits] or [prices])", section);
    if (!k)
        return refuse(c, "%s: unknown key in [%s] (docs/long-runs.md lists the keys)", name, section);
    value = value ? value : "";
    d = (double *)(void *)(base + k->off);
    switch (k->kind) {
    case K_TEXT:
        if (strlen(value) >= LIMITS_NAME_MAX)
            return refuse(c, "%s: longer than %d bytes", name, LIMITS_NAME_MAX - 1);
        snprintf(base + k->off, LIMITS_NAME_MAX, "%s", value);
        return 1;
    case K_CURRENCY:
        if (!*value || strlen(value) >= sizeof c->l->currency)
            return refuse(c, "%s: bad value '%s' (want a short name such as USD)", name, value);
        snprintf(c->l->currency, sizeof c->l->currency, "%s", value);
        return 1;
    case K_RATE:
        if (limits_parse_quantity(value, 1, d) < 0)
            return refuse(c, "%s: bad value '%s' (want a rate such as 100MiB/s, 50KiB/s, 10Gbit/s)", name, value);
        break;
    case K_SIZE:
        if (limits_parse_quantity(value, 0, d) < 0)
            return refuse(c, "%s: bad value '%s' (want a size such as 2.1TiB)", name, value);
        break;
    case K_IOPS: {
        uint64_t n;
        if (units_parse_count(value, &n) < 0 || n == 0)
            return refuse(c, "%s: bad value '%s' (want operations a second such as 35000 or 55k)", name, value);
        *d = (double)n;
        break;
    }
    case K_RATIO:
        if (parse_ratio(value, d) < 0)
            return refuse(c, "%s: bad value '%s' (want a ratio above 0 such as 1/3 or 0.5)", name, value);
        break;
    case K_MONEY:
        if (parse_money(value, d) < 0)
            return refuse(c, "%s: bad value '%s' (want a price of 0 or more such as 0.03)", name, value);
        break;
    }
    if (strcmp(section, "credits") == 0)
        c->l->has_credits = 1;
    if (strcmp(section, "prices") == 0)
        c->l->has_prices = 1;
    return 1;
}

int limits_load(const char *path, struct limits *l, char *err, size_t errlen)
{
    struct parse_ctx c = { .l = l };
    FILE *f;
    int line, rc;

    memset(l, 0, sizeof *l);
    l->read_metering = l->write_metering = 1;
    snprintf(l->path, sizeof l->path, "%s", path);
    if (!(f = input_file_open("--limits", path, LIMITS_FILE_MAX, 0, err, errlen, &rc)))
        return rc;
    line = ini_parse_file(f, on_key, &c);
    fclose(f);
    if (line < 0) {
        snprintf(err, errlen, "--limits %s: out of memory", path);
        return -ENOMEM;
    }
    if (line > 0 && !c.failed)
        return why_fail(err, errlen, "%s:%d: syntax error (want key = value, or a [section])", path, line);
    if (c.failed)
        return why_fail(err, errlen, "%s:%d: %s", path, line, c.why);
    if (!l->currency[0])
        snprintf(l->currency, sizeof l->currency, "USD");
    return 0;
}

int limits_set_fs_size(struct limits *l, const char *s, char *err, size_t errlen)
{
    double v;
    if (limits_parse_quantity(s, 0, &v) < 0 || v <= 0)
        return why_fail(err, errlen, "--fs-size: bad value '%s' (want the bytes stored, such as 500GiB or 1.5TiB)",
                        s ? s : "");
    l->fs_size_bytes = v;
    return 0;
}

double limits_baseline_bps(const struct limits *l)
{
    double b = l->baseline_per_gib_bps * (l->fs_size_bytes / 1073741824.0);
    return b > l->baseline_min_bps ? b : l->baseline_min_bps;
}

double limits_burst_bps(const struct limits *l)
{
    double b = l->burst_per_tib_bps * (l->fs_size_bytes / 1099511627776.0);
    return b > l->burst_bps ? b : l->burst_bps;
}
