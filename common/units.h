/* units: parsing and printing of sizes, durations and rates, in one place.
 *
 * Parsing follows fio's conventions: sizes take k/m/g/t/p suffixes (any case,
 * optional trailing "b" or "ib") with k=1024 as fio does by default; durations
 * are seconds unless suffixed with ns/us/ms/s/m/h/d. */
#ifndef NFSTORM_UNITS_H
#define NFSTORM_UNITS_H

#include <stdint.h>
#include <stddef.h>

/* 0 on success, -EINVAL on a malformed or out-of-range string, -ERANGE on overflow. */
int units_parse_size(const char *s, uint64_t *bytes);
/* The same with fio's kb_base: 1024 (its default, as units_parse_size) or
 * 1000, where k/m/g/Ki... are powers of 1000 and only KiB/MiB/... of 1024.
 * Any other kb_base is -EINVAL. */
int units_parse_size_kb(const char *s, unsigned kb_base, uint64_t *bytes);
/* default_unit_ns is what a bare number means (NS_PER_SEC for fio's runtime). */
int units_parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *ns);
/* A count with decimal suffixes k/m/g (1000, 10^6, 10^9; any case), fractions
 * allowed ("2.5k"): ops per second such as null_capacity_iops=50k.  0,
 * -EINVAL or -ERANGE. */
int units_parse_count(const char *s, uint64_t *n);
/* Plain unsigned decimal; 0 or -EINVAL. */
int units_parse_u64(const char *s, uint64_t *v);
/* fio booleans: 1/0, true/false, yes/no, on/off (empty means 1). */
int units_parse_bool(const char *s, int *v);

/* Formatting into caller buffers; they return buf.
 * units_fmt_bytes: IEC by default ("4KiB", "1.5MiB"); base 1000 gives SI ("4.1kB"). */
char *units_fmt_bytes(char *buf, size_t len, double bytes, int base);
char *units_fmt_rate(char *buf, size_t len, double bytes_per_s, int base);  /* "120MiB/s" */
char *units_fmt_count(char *buf, size_t len, double n);                     /* "12.3k" */
char *units_fmt_ns(char *buf, size_t len, double ns);                       /* "812us", "1.20ms" */
/* A block size, exact whatever the report's unit base: a whole number of
 * the largest IEC unit that divides it ("4KiB", "128KiB", "32MiB"), else
 * bytes ("1536B", "4097B").  Never rounded: a block size is a setting the
 * user typed, not a measurement, so --unit-base 1000 does not apply. */
char *units_fmt_block_size(char *buf, size_t len, uint64_t bytes);

#define NS_PER_US  UINT64_C(1000)
#define NS_PER_MS  UINT64_C(1000000)
#define NS_PER_SEC UINT64_C(1000000000)

#endif
