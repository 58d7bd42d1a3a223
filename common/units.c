/* units: parsing and printing of sizes, durations and rates.
 *
 * Design: every parser shares one number reader that keeps the integer and
 * the fractional digits apart as integers, so "1.5k" is computed exactly
 * (1536) instead of through a double, and a fraction that does not come out
 * as a whole number of the base unit ("1.3k", "1.5ns") is rejected rather
 * than silently rounded.  Parsers are strict (no signs, no whitespace, no
 * hex): job files are short and a typo should be an error, not a surprise.
 *
 * Formatters print about three significant digits and strip trailing zeros
 * ("4KiB", "1.5MiB", "812us", "1.2ms"), moving to the next unit when rounding
 * reaches the base ("1024KiB" prints as "1MiB"). */
#include "common/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/names.h"

/* Fraction digits beyond this many (after dropping trailing zeros) cannot
 * give a whole number with any multiplier we use; reject them up front so
 * the exact arithmetic below fits in 128 bits. */
#define MAX_FRAC_DIGITS 19

struct number {
    uint64_t ipart;     /* digits before the '.' */
    uint64_t frac;      /* digits after the '.', trailing zeros removed */
    unsigned frac_digits;
};

/* Read [0-9]+ ( '.' [0-9]+ )? from *sp, advancing it.  -EINVAL when there is
 * no number, -ERANGE when the integer part overflows. */
static int read_number(const char **sp, struct number *n)
{
    const char *s = *sp;
    memset(n, 0, sizeof(*n));
    if (*s < '0' || *s > '9')
        return -EINVAL;
    int overflow = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (n->ipart > (UINT64_MAX - d) / 10)
            overflow = 1;
        else
            n->ipart = n->ipart * 10 + d;
    }
    if (*s == '.') {
        s++;
        if (*s < '0' || *s > '9')
            return -EINVAL;
        const char *f = s;
        while (*s >= '0' && *s <= '9')
            s++;
        const char *end = s;
        while (end > f && end[-1] == '0')
            end--;
        if (end - f > MAX_FRAC_DIGITS)
            return -EINVAL;
        for (; f < end; f++) {
            n->frac = n->frac * 10 + (uint64_t)(*f - '0');
            n->frac_digits++;
        }
    }
    *sp = s;
    return overflow ? -ERANGE : 0;
}

/* n * mult exactly: -EINVAL when not a whole number, -ERANGE on overflow. */
static int scale_number(const struct number *n, uint64_t mult, uint64_t *out)
{
    uint64_t whole;
    if (__builtin_mul_overflow(n->ipart, mult, &whole))
        return -ERANGE;
    if (n->frac_digits == 0) {
        *out = whole;
        return 0;
    }
    unsigned __int128 pow10 = 1;
    for (unsigned i = 0; i < n->frac_digits; i++)
        pow10 *= 10;
    unsigned __int128 num = (unsigned __int128)n->frac * mult;
    if (num % pow10 != 0)
        return -EINVAL;
    uint64_t part = (uint64_t)(num / pow10);  /* < mult, fits */
    uint64_t sum;
    if (__builtin_add_overflow(whole, part, &sum))   /* leave *out alone on error */
        return -ERANGE;
    *out = sum;
    return 0;
}

struct suffix {
    const char *name;
    uint64_t mult;
};

static int lookup_suffix(const struct suffix *tab, size_t n, const char *s, uint64_t *mult)
{
    for (size_t i = 0; i < n; i++) {
        if (strcasecmp(s, tab[i].name) == 0) {
            *mult = tab[i].mult;
            return 0;
        }
    }
    return -EINVAL;
}

/* A size's suffix: a letter of "kmgtp" (its power of the base) followed by
 * nothing, "b", "i" or "ib", in any case; "" and "b" are bytes.  fio's
 * default kb_base=1024 makes every spelling a power of 1024 (fio 3.33
 * itself reads "KiB" as 1000 there, its "compatibility mode"; nfstorm keeps
 * every spelling a power of 1024, docs/plans.md says so).  fio's
 * kb_base=1000 (IEC 80000-13): only the "ib" spellings are powers of 1024;
 * "k", "kb", "Ki" are 1000 (fio 3.33 measured: bs=4Ki is 4000 bytes). */
static int size_mult(const char *s, unsigned kb_base, uint64_t *mult)
{
    static const char powers[] = "kmgtp";
    const char *p = *s ? strchr(powers, tolower((unsigned char)*s)) : NULL;
    const char *rest = s + 1;
    *mult = 1;
    if (!*s || strcasecmp(s, "b") == 0)
        return 0;
    if (!p || (*rest && strcasecmp(rest, "b") && strcasecmp(rest, "i") && strcasecmp(rest, "ib")))
        return -EINVAL;
    for (const char *q = powers; q <= p; q++)
        *mult *= kb_base == 1000 && strcasecmp(rest, "ib") ? 1000 : 1024;
    return 0;
}

int units_parse_size_kb(const char *s, unsigned kb_base, uint64_t *bytes)
{
    if (!s || (kb_base != 1000 && kb_base != 1024))
        return -EINVAL;
    struct number n;
    int rc = read_number(&s, &n);
    uint64_t mult;
    /* A bad suffix is a worse error than a big number: check it first. */
    if (rc == -EINVAL || size_mult(s, kb_base, &mult))
        return -EINVAL;
    if (rc)
        return rc;
    return scale_number(&n, mult, bytes);
}

int units_parse_size(const char *s, uint64_t *bytes)
{
    return units_parse_size_kb(s, 1024, bytes);
}

static const struct suffix count_suffixes[] = {
    { "", 1 }, { "k", 1000 }, { "m", 1000000 }, { "g", UINT64_C(1000000000) },
};

int units_parse_count(const char *s, uint64_t *n)
{
    if (!s)
        return -EINVAL;
    struct number num;
    int rc = read_number(&s, &num);
    uint64_t mult;
    if (rc == -EINVAL ||
        lookup_suffix(count_suffixes, NELEM(count_suffixes), s, &mult))
        return -EINVAL;
    if (rc)
        return rc;
    return scale_number(&num, mult, n);
}

static const struct suffix time_suffixes[] = {
    { "ns", 1 }, { "nsec", 1 },
    { "us", NS_PER_US }, { "usec", NS_PER_US },
    { "ms", NS_PER_MS }, { "msec", NS_PER_MS },
    { "s", NS_PER_SEC }, { "sec", NS_PER_SEC },
    { "m", 60 * NS_PER_SEC }, { "min", 60 * NS_PER_SEC },
    { "h", 3600 * NS_PER_SEC },
    { "d", 86400 * NS_PER_SEC },
};

int units_parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *ns)
{
    if (!s || default_unit_ns == 0)
        return -EINVAL;
    struct number n;
    int rc = read_number(&s, &n);
    if (rc == -EINVAL)
        return rc;
    uint64_t mult = default_unit_ns;
    if (*s && lookup_suffix(time_suffixes, NELEM(time_suffixes), s, &mult))
        return -EINVAL;
    if (rc)
        return rc;
    return scale_number(&n, mult, ns);
}

int units_parse_u64(const char *s, uint64_t *v)
{
    struct number n;
    /* digits only (no fraction, no suffix); past 2^64 is an error too */
    if (!s || !*s || s[strspn(s, "0123456789")] || read_number(&s, &n))
        return -EINVAL;
    *v = n.ipart;
    return 0;
}

int units_parse_bool(const char *s, int *v)
{
    static const struct { const char *word; int on; } words[] = {
        { "", 1 }, { "1", 1 }, { "true", 1 }, { "yes", 1 }, { "on", 1 },
        { "0", 0 }, { "false", 0 }, { "no", 0 }, { "off", 0 },
    };
    if (!s)
        s = "";    /* a bare "key" with no value in a job file means on */
    for (size_t i = 0; i < NELEM(words); i++) {
        if (strcasecmp(s, words[i].word) == 0) {
            *v = words[i].on;
            return 0;
        }
    }
    return -EINVAL;
}

/* Print |v| scaled through units[] (each dividing by step) with ~3
 * significant digits, trailing zeros stripped, then tail. */
static char *fmt_scaled(char *buf, size_t len, double v, const char *const *units,
                        double step, size_t nunits, const char *tail)
{
    if (!buf || len == 0)
        return buf;
    if (!isfinite(v)) {
        snprintf(buf, len, "%g%s%s", v, units[0], tail);
        return buf;
    }
    const char *sign = v < 0 ? "-" : "";
    double a = fabs(v);
    size_t u = 0;
    while (u + 1 < nunits && a >= step) {
        a /= step;
        u++;
    }
    char num[64];
    for (;;) {
        int prec = a < 9.995 ? 2 : a < 99.95 ? 1 : 0;
        snprintf(num, sizeof(num), "%.*f", prec, a);
        /* rounding may reach the next unit ("1024KiB" -> "1MiB") */
        if (u + 1 < nunits && strtod(num, NULL) >= step) {
            a /= step;
            u++;
            continue;
        }
        break;
    }
    char *dot = strchr(num, '.');
    if (dot) {
        char *end = num + strlen(num);
        while (end > dot + 1 && end[-1] == '0')
            end--;
        if (end == dot + 1)
            end = dot;
        *end = '\0';
    }
    if (strcmp(num, "0") == 0)
        sign = "";
    snprintf(buf, len, "%s%s%s%s", sign, num, units[u], tail);
    return buf;
}

static const char *const iec_units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
static const char *const si_units[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };

static char *fmt_bytes_tail(char *buf, size_t len, double bytes, int base, const char *tail)
{
    if (base == 1000)
        return fmt_scaled(buf, len, bytes, si_units, 1000, NELEM(si_units), tail);
    return fmt_scaled(buf, len, bytes, iec_units, 1024, NELEM(iec_units), tail);
}

char *units_fmt_bytes(char *buf, size_t len, double bytes, int base)
{
    return fmt_bytes_tail(buf, len, bytes, base, "");
}

char *units_fmt_rate(char *buf, size_t len, double bytes_per_s, int base)
{
    return fmt_bytes_tail(buf, len, bytes_per_s, base, "/s");
}

char *units_fmt_count(char *buf, size_t len, double n)
{
    static const char *const units[] = { "", "k", "M", "G", "T", "P", "E" };
    return fmt_scaled(buf, len, n, units, 1000, NELEM(units), "");
}

char *units_fmt_ns(char *buf, size_t len, double ns)
{
    static const char *const units[] = { "ns", "us", "ms", "s" };
    return fmt_scaled(buf, len, ns, units, 1000, NELEM(units), "");
}

char *units_fmt_block_size(char *buf, size_t len, uint64_t bytes)
{
    size_t u = 0;

    if (!buf || len == 0)
        return buf;
    /* bytes == 0 stays "0B"; a unit is taken only while it divides exactly */
    while (bytes && u + 1 < NELEM(iec_units) && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, len, "%llu%s", (unsigned long long)bytes, iec_units[u]);
    return buf;
}
