/* vblock: verified block headers (see vblock.h for the layout and what
 * each check can and cannot tell).
 *
 * The write path costs one header, a store per 512-byte sector and one
 * checksum pass over the unit; the read path the same pass plus compares.
 * Nothing is copied: both work on the I/O buffer in place, so a block is
 * summed once per write and once per read (fio's verify does the same
 * work).  md5 and sha256 come from libcrypto's EVP interface with one
 * context per job thread, reused for every block. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <time.h>
#include "common/vblock.h"
#include "common/fnv.h"
#include "common/le.h"
#include "common/xmalloc.h"
#include "common/names.h"

#define H_MAGIC   0
#define H_VERSION 4
#define H_CSUM    5
#define H_LEN     8
#define H_WRITER  12
#define H_JOB     16
#define H_FILE    24
#define H_OFFSET  32
#define H_GEN     40
#define H_TIME    48
#define H_STAMP   56
#define H_RUN     64
#define H_HCRC    72
#define H_PAD     76
#define H_SUM     80
#define H_SUM_LEN 32
#define STAMP_AT  (VBLOCK_SECTOR - 8)   /* a sector's stamp: its last 8 bytes */

static const char *const csum_names[VB_CSUM__COUNT] = {
    "off", "null", "meta", "crc32c", "md5", "sha256", "pattern",
};
static const char *const kind_names[VB__COUNT] = {
    "ok", "corrupt_checksum", "wrong_offset", "wrong_file", "stale_generation",
    "torn", "zeroes", "wrong_writer",
};

const char *vblock_csum_name(enum vblock_csum c)
{
    return names_word(csum_names, VB_CSUM__COUNT, c);
}

int vblock_csum_from_name(const char *s)
{
    int i = names_index(csum_names, VB_CSUM__COUNT, s);
    if (s && strcmp(s, "crc32c-intel") == 0)
        return VB_CSUM_CRC32C;
    return i == VB_CSUM_OFF ? -1 : i;      /* "off" is no verify= word */
}

NAMES_LOOKUPS(vblock_kind_name, vblock_kind_from_name, enum vblock_kind, kind_names, VB__COUNT)

/* ---- crc32c ---------------------------------------------------------- */

#define CRC_POLY 0x82f63b78u           /* Castagnoli, bit-reflected */

/* The byte-at-a-time table of the software path, built at load time,
 * before any job thread can sum a block. */
static uint32_t crc_table[256];

__attribute__((constructor)) static void crc_table_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (c & 1 ? CRC_POLY : 0);
        crc_table[i] = c;
    }
}

static uint32_t crc32c_sw(uint32_t crc, const unsigned char *p, size_t n)
{
    while (n--)
        crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const unsigned char *p, size_t n)
{
    uint64_t c = crc;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __builtin_ia32_crc32di(c, w);
    }
    crc = (uint32_t)c;
    while (n--)
        crc = __builtin_ia32_crc32qi(crc, *p++);
    return crc;
}
#endif

/* Three streams at once.  The crc32 instruction's latency is three times
 * its issue rate, so one dependent chain runs at a third of what the unit
 * can do.  The CRC register update is linear: running state s over a
 * stretch B gives shift(s, |B|) ^ run(0, B), where shift multiplies by
 * x^(8|B|) mod P.  So three thirds are summed from 0 side by side and
 * joined with two multiplications (GF(2), the register's bit-reflected
 * form: bit 31 is the coefficient of x^0). */
#define CRC_PAR_MIN 768               /* below this one chain is as fast */

static uint32_t gf_mul(uint32_t a, uint32_t b)
{
    uint32_t r = 0;
    for (int i = 31; i >= 0; i--) {   /* a's terms from x^0 up; b times x each step */
        if (a >> i & 1)
            r ^= b;
        b = (b >> 1) ^ (b & 1 ? CRC_POLY : 0);
    }
    return r;
}

/* x^(8 nbytes) mod P, by squaring. */
static uint32_t x_pow_bytes(uint64_t nbytes)
{
    uint32_t r = 0x80000000u, base = 0x40000000u;   /* x^0, x^1 */
    for (uint64_t e = nbytes * 8; e; e >>= 1) {
        if (e & 1)
            r = gf_mul(r, base);
        base = gf_mul(base, base);
    }
    return r;
}

struct crc_par {                      /* shift constants by stream length */
    uint64_t len[4];
    uint32_t k[4];
    unsigned next;
};

static uint32_t par_shift(struct crc_par *cp, uint64_t len)
{
    uint32_t k;
    for (unsigned i = 0; cp && i < 4; i++)
        if (cp->len[i] == len)
            return cp->k[i];
    k = x_pow_bytes(len);
    if (cp) {
        cp->len[cp->next] = len;
        cp->k[cp->next] = k;
        cp->next = (cp->next + 1) % 4;
    }
    return k;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw3(uint32_t crc, const unsigned char *p, size_t n, struct crc_par *cp)
{
    if (n >= CRC_PAR_MIN) {
        size_t third = (n / 3) & ~(size_t)7;
        const unsigned char *q = p + third, *r = q + third;
        uint64_t c0 = crc, c1 = 0, c2 = 0;
        uint32_t k;
        for (size_t i = 0; i < third; i += 8) {
            uint64_t w0, w1, w2;
            memcpy(&w0, p + i, 8);
            memcpy(&w1, q + i, 8);
            memcpy(&w2, r + i, 8);
            c0 = __builtin_ia32_crc32di(c0, w0);
            c1 = __builtin_ia32_crc32di(c1, w1);
            c2 = __builtin_ia32_crc32di(c2, w2);
        }
        k = par_shift(cp, third);
        crc = gf_mul((uint32_t)c0, k) ^ (uint32_t)c1;
        crc = gf_mul(crc, k) ^ (uint32_t)c2;
        p += 3 * third;
        n -= 3 * third;
    }
    return crc32c_hw(crc, p, n);
}
#endif

static uint32_t crc32c_par(uint32_t crc, const void *p, size_t n, struct crc_par *cp)
{
    crc = ~crc;
#if defined(__x86_64__)
    /* the probe result is cached by the compiler runtime (cpu model init) */
    if (__builtin_cpu_supports("sse4.2"))
        return ~crc32c_hw3(crc, p, n, cp);
#endif
    (void)cp;
    return ~crc32c_sw(crc, p, n);
}

uint32_t vblock_crc32c(uint32_t crc, const void *p, size_t n)
{
    return crc32c_par(crc, p, n, NULL);
}

/* ---- helpers --------------------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* Differs between any two writes (the timestamp is in it); never 0, so a
 * zeroed sector can never carry a valid stamp. */
static uint64_t write_stamp(const struct vblock_id *id)
{
    uint64_t h = mix64(id->file_id ^ 0x6a09e667f3bcc908ull);
    h = mix64(h ^ id->offset);
    h = mix64(h ^ ((uint64_t)id->writer << 32 | id->job));
    h = mix64(h ^ id->gen);
    h = mix64(h ^ id->time_ns);
    h = mix64(h ^ id->run);
    return h ? h : 1;
}

static int all_zero(const unsigned char *p, size_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* Stamp positions: the last 8 bytes of each sector, unless inside the header. */
static int stamp_pos(const struct vblock_ctx *c, uint32_t len, uint32_t s, uint32_t *pos)
{
    uint64_t at = (uint64_t)s * VBLOCK_SECTOR + STAMP_AT;
    if (at + 8 > len)
        return 0;
    *pos = (uint32_t)at;
    return !(at + 8 > c->hdr_off && at < (uint64_t)c->hdr_off + VBLOCK_HDR_LEN);
}

/* The unit's checksum, all of it but the 32 bytes that hold it. */
static void unit_sum(const struct vblock_ctx *c, const unsigned char *u, uint32_t len,
                     unsigned char out[H_SUM_LEN])
{
    size_t a = c->hdr_off + H_SUM, b = (size_t)c->hdr_off + VBLOCK_HDR_LEN;
    memset(out, 0, H_SUM_LEN);
    if (c->csum == VB_CSUM_CRC32C) {
        /* a crc continues from the one it returned */
        uint32_t crc = crc32c_par(vblock_crc32c(0, u, a), u + b, len - b, c->crcpar);
        le_put32(out, crc);
    } else if (c->md) {
        unsigned int n = 0;
        EVP_DigestInit_ex(c->md, c->evp, NULL);
        EVP_DigestUpdate(c->md, u, a);
        EVP_DigestUpdate(c->md, u + b, len - b);
        EVP_DigestFinal_ex(c->md, out, &n);
    }
}

/* ---- context --------------------------------------------------------- */

int vblock_ctx_init(struct vblock_ctx *c, enum vblock_csum csum, uint32_t hdr_off,
                    const unsigned char *pattern, size_t pattern_len)
{
    memset(c, 0, sizeof *c);
    if (csum == VB_CSUM_OFF || (unsigned)csum >= VB_CSUM__COUNT || pattern_len > sizeof c->pattern)
        return -EINVAL;
    if (csum == VB_CSUM_PATTERN && pattern_len == 0)
        return -EINVAL;
    c->csum = csum;
    c->hdr_off = hdr_off;
    if (pattern_len)
        memcpy(c->pattern, pattern, pattern_len);
    c->pattern_len = pattern_len;
    if (csum == VB_CSUM_CRC32C)
        c->crcpar = xcalloc(1, sizeof(struct crc_par));
    if (csum == VB_CSUM_MD5 || csum == VB_CSUM_SHA256) {
        c->evp = csum == VB_CSUM_MD5 ? EVP_md5() : EVP_sha256();
        if (!c->evp || !(c->md = EVP_MD_CTX_new()))
            return -ENOMEM;
    }
    return 0;
}

void vblock_ctx_close(struct vblock_ctx *c)
{
    if (c->md)
        EVP_MD_CTX_free(c->md);
    c->md = NULL;
    free(c->crcpar);
    c->crcpar = NULL;
}

int vblock_unit_fits(const struct vblock_ctx *c, uint64_t len)
{
    if (c->csum == VB_CSUM_NULL || c->csum == VB_CSUM_PATTERN)
        return len > 0 && len <= UINT32_MAX;
    return len >= VBLOCK_MIN_UNIT && len <= UINT32_MAX &&
           (uint64_t)c->hdr_off + VBLOCK_HDR_LEN <= len;
}

uint64_t vblock_file_id(const char *path)
{
    return fnv64_str(FNV64_BASIS, path);
}

#define GEN_EPOCH_MS 1704067200000ull   /* 2024-01-01T00:00:00Z */

uint64_t vblock_generation(uint64_t run_ms, uint32_t phase, uint32_t pass)
{
    uint64_t ms = run_ms > GEN_EPOCH_MS ? run_ms - GEN_EPOCH_MS : 0;
    return (ms & ((1ull << 43) - 1)) << 20 | (uint64_t)(phase & 0xfff) << 8 | (pass & 0xff);
}

uint64_t vblock_generation_ms(uint64_t gen)
{
    return gen ? (gen >> 20) + GEN_EPOCH_MS : 0;
}

uint64_t vblock_run_new(void)
{
    uint64_t id = 0;
    if (RAND_bytes((unsigned char *)&id, sizeof id) != 1) {
        /* no entropy source: the clock still tells runs apart */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        id = mix64((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
    }
    return id ? id : 1;
}

void vblock_run_format(uint64_t run, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)run);
}

int vblock_run_parse(const char *s, uint64_t *run)
{
    uint64_t v;
    /* exactly 16 digits: strtoull alone would take a sign, blanks or "0x" */
    if (!s || strlen(s) != 16 || strspn(s, "0123456789abcdefABCDEF") != 16 ||
        (v = strtoull(s, NULL, 16)) == 0)
        return -EINVAL;
    *run = v;
    return 0;
}

/* ---- fill and check -------------------------------------------------- */

void vblock_pattern_fill(void *p, uint64_t len, const unsigned char *pat, size_t plen)
{
    unsigned char *u = p;
    uint64_t done = len < plen ? len : plen;
    memcpy(u, pat, (size_t)done);
    /* doubling copies: memcpy, not a byte loop */
    while (done < len) {
        uint64_t n = done < len - done ? done : len - done;
        memcpy(u + done, u, (size_t)n);
        done += n;
    }
}

static int pattern_ok(const struct vblock_ctx *c, const unsigned char *u, uint32_t len)
{
    size_t plen = c->pattern_len;
    size_t first = plen < len ? plen : len;
    if (memcmp(u, c->pattern, first) != 0)
        return 0;
    /* each further stretch (at a multiple of plen) equals the first */
    for (size_t at = plen; at < len; at += plen) {
        size_t n = len - at < plen ? len - at : plen;
        if (memcmp(u + at, u, n) != 0)
            return 0;
    }
    return 1;
}

void vblock_fill(const struct vblock_ctx *c, void *buf, uint32_t len, const struct vblock_id *id)
{
    unsigned char *u = buf, *h, sum[H_SUM_LEN];
    uint64_t stamp;
    uint32_t pos;

    if (c->csum == VB_CSUM_NULL)
        return;
    if (c->csum == VB_CSUM_PATTERN) {
        vblock_pattern_fill(u, len, c->pattern, c->pattern_len);
        return;
    }
    h = u + c->hdr_off;
    stamp = write_stamp(id);
    memset(h, 0, VBLOCK_HDR_LEN);       /* the reserved bytes, H_PAD and the sum's room */
    le_put32(h + H_MAGIC, VBLOCK_MAGIC);
    h[H_VERSION] = VBLOCK_VERSION;
    h[H_CSUM] = (unsigned char)c->csum;
    le_put32(h + H_LEN, len);
    le_put32(h + H_WRITER, id->writer);
    le_put32(h + H_JOB, id->job);
    le_put64(h + H_FILE, id->file_id);
    le_put64(h + H_OFFSET, id->offset);
    le_put64(h + H_GEN, id->gen);
    le_put64(h + H_TIME, id->time_ns);
    le_put64(h + H_STAMP, stamp);
    le_put64(h + H_RUN, id->run);
    le_put32(h + H_HCRC, vblock_crc32c(0, h, H_HCRC));
    for (uint32_t s = 0; (uint64_t)s * VBLOCK_SECTOR < len; s++)
        if (stamp_pos(c, len, s, &pos))
            le_put64(u + pos, stamp);
    if (c->csum != VB_CSUM_META) {
        unit_sum(c, u, len, sum);
        memcpy(h + H_SUM, sum, H_SUM_LEN);
    }
}

/* A sector whose stamp is not the header's: zeroed, one flipped byte, or
 * another write's. */
static enum vblock_kind sector_kind(const unsigned char *u, uint32_t len, uint32_t s,
                                    uint64_t want, uint64_t got)
{
    uint64_t start = (uint64_t)s * VBLOCK_SECTOR;
    uint64_t n = len - start < VBLOCK_SECTOR ? len - start : VBLOCK_SECTOR;
    int diff = 0;
    if (all_zero(u + start, n))
        return VB_ZEROES;
    for (int i = 0; i < 8; i++)
        diff += ((want ^ got) >> (8 * i) & 0xff) != 0;
    return diff == 1 ? VB_CORRUPT : VB_TORN;
}

enum vblock_kind vblock_check(const struct vblock_ctx *c, const void *buf, uint32_t len,
                              const struct vblock_expect *e, struct vblock_id *found)
{
    const unsigned char *u = buf, *h;
    unsigned char sum[H_SUM_LEN];
    uint64_t stamp;
    uint32_t pos;

    memset(found, 0, sizeof *found);
    if (c->csum == VB_CSUM_NULL)
        return VB_OK;
    if (c->csum == VB_CSUM_PATTERN) {
        if (pattern_ok(c, u, len))
            return VB_OK;
        return all_zero(u, len) ? VB_ZEROES : VB_CORRUPT;
    }
    if (!vblock_unit_fits(c, len))
        return VB_CORRUPT;
    h = u + c->hdr_off;
    if (le_get32(h + H_MAGIC) != VBLOCK_MAGIC)
        return all_zero(u, len) ? VB_ZEROES : VB_CORRUPT;
    if (le_get32(h + H_HCRC) != vblock_crc32c(0, h, H_HCRC) || h[H_VERSION] != VBLOCK_VERSION ||
        h[H_CSUM] != (unsigned char)c->csum || le_get32(h + H_LEN) != len || le_get32(h + H_PAD) != 0)
        return VB_CORRUPT;
    /* meta sums no data: its checksum bytes must still be what the writer
     * left (zero), so no header byte goes unchecked */
    if (c->csum == VB_CSUM_META && !all_zero(h + H_SUM, H_SUM_LEN))
        return VB_CORRUPT;
    found->writer = le_get32(h + H_WRITER);
    found->job = le_get32(h + H_JOB);
    found->file_id = le_get64(h + H_FILE);
    found->offset = le_get64(h + H_OFFSET);
    found->gen = le_get64(h + H_GEN);
    found->time_ns = le_get64(h + H_TIME);
    found->run = le_get64(h + H_RUN);
    stamp = le_get64(h + H_STAMP);
    for (uint32_t s = 0; (uint64_t)s * VBLOCK_SECTOR < len; s++) {
        uint64_t got;
        if (!stamp_pos(c, len, s, &pos))
            continue;
        if ((got = le_get64(u + pos)) != stamp)
            return sector_kind(u, len, s, stamp, got);
    }
    if (c->csum != VB_CSUM_META) {
        unit_sum(c, u, len, sum);
        if (memcmp(sum, h + H_SUM, H_SUM_LEN) != 0)
            return VB_CORRUPT;
    }
    if (found->file_id != e->file_id)
        return VB_WRONG_FILE;
    if (found->offset != e->offset)
        return VB_WRONG_OFFSET;
    if (e->writer != VBLOCK_ANY_WRITER && found->writer != e->writer)
        return VB_WRONG_WRITER;
    if (e->run && found->run != e->run)
        return VB_STALE;
    if (e->min_gen && found->gen < e->min_gen)
        return VB_STALE;
    if (e->gen != VBLOCK_ANY_GEN && found->gen != e->gen)
        return VB_STALE;
    return VB_OK;
}
