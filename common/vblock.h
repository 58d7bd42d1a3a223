/* vblock: the self-describing header of a verified block, and the check
 * that classifies what a read found.
 *
 * A write with verify= set carries, in every verify unit (verify_interval
 * bytes, default the block size), a header that says who wrote it where and
 * when, plus a checksum over the rest of the unit; a read checks every field
 * against what it expected.  Nothing else is needed to verify a file later
 * (verify_only=1, another phase, another run, another agent): no state file.
 *
 * Unit layout (little-endian; the header sits at hdr_off, fio's
 * verify_offset, default 0):
 *
 *   hdr+0   u32 magic "NFSV"      hdr+4  u8 version, u8 csum kind, u16 0
 *   hdr+8   u32 unit length       hdr+12 u32 writer (agent index)
 *   hdr+16  u32 job (global job)  hdr+20 u32 0
 *   hdr+24  u64 file id           hdr+32 u64 offset of the unit in the file
 *   hdr+40  u64 generation        hdr+48 u64 timestamp (writer's clock, ns)
 *   hdr+56  u64 write stamp       hdr+64 u64 run id (the writing run's)
 *   hdr+72  u32 crc32c of hdr+0..72  hdr+76 u32 0
 *   hdr+80  32 bytes: checksum of the whole unit but these 32 bytes (zero
 *           for meta, and the bytes a shorter checksum leaves are zero)
 *
 * Every header byte is checked by every kind that has a header: 0..72 by
 * the header's crc, 76..80 and the unused checksum bytes by being zero.
 * Version 1 headers (104 bytes, no run id) read as corrupt_checksum.
 *
 * Torn blocks: the last 8 bytes of every 512-byte sector of the unit (but
 * those inside the header) hold the write stamp, a hash of the header's
 * identity, timestamp included, so it differs between any two writes.  A
 * unit whose header is intact but whose sectors carry another stamp holds
 * the header of one write and (part of) the data of another: torn.  This
 * detects tears at any 512-byte boundary (page or sector granularity, what
 * a file system or server can tear on); a tear inside a sector, or one
 * between two writes whose data and stamp happen to agree, shows up only as
 * a bad checksum.  A single flipped byte that lands inside a stamp is told
 * from a tear by its distance (one byte differs): corrupt, not torn.
 *
 * Generation: chosen by the writer so that later writes carry larger
 * numbers: vblock_generation(run ms, phase, pass): the agent's wall clock
 * at plan receipt in ms since 2024-01-01 (43 bits: until the year 2302),
 * then the phase (12 bits) and the pass (8: 0 layout, 1 the phase's
 * writes); below 2^63, so JSON integers carry it.  The run clock is the
 * coordinator's (sent with the plan), so every agent of one run writes the
 * same generation in one phase.  A reader that knows what it wrote expects
 * that exact value; a reader of what an earlier phase of its run wrote
 * expects that run and at least that phase's generation; a reader without
 * state (verify_only) expects the newest generation of the file (see
 * docs/verify.md).
 *
 * Run id: a random 64-bit number the coordinator draws per run, never 0,
 * printed as 16 hex digits (vblock_run_format); every block carries it.
 *
 * Everything here is pure (no I/O, no globals besides the CPU feature
 * probe); a context owns a libcrypto digest context (md5, sha256) or
 * crc32c's cached shift constants, and serves one thread. */
#ifndef NFSTORM_VBLOCK_H
#define NFSTORM_VBLOCK_H

#include <stddef.h>
#include <stdint.h>

#define VBLOCK_MAGIC    0x5653464eu   /* "NFSV" little-endian */
#define VBLOCK_VERSION  2
#define VBLOCK_HDR_LEN  112
#define VBLOCK_SECTOR   512
#define VBLOCK_MIN_UNIT 128           /* the header and some data */
#define VBLOCK_ANY_WRITER UINT32_MAX
#define VBLOCK_ANY_GEN  0

/* Checksum kinds, as verify= spells them (the wire carries the enum). */
enum vblock_csum {
    VB_CSUM_OFF = 0,    /* no verify= (a job_spec's default) */
    VB_CSUM_NULL,       /* verify=null: nothing written, nothing inspected */
    VB_CSUM_META,       /* header only (its own crc), data not summed */
    VB_CSUM_CRC32C,     /* crc32c and crc32c-intel: SSE4.2 when present */
    VB_CSUM_MD5,
    VB_CSUM_SHA256,
    VB_CSUM_PATTERN,    /* no header: the data must be verify_pattern */
    VB_CSUM__COUNT
};

/* What a check found; the order is the order of the JSON counters. */
enum vblock_kind {
    VB_OK = 0,
    VB_CORRUPT,         /* checksum (or the header's own crc) wrong */
    VB_WRONG_OFFSET,    /* a good unit of this file, from another offset */
    VB_WRONG_FILE,      /* a good unit of another file */
    VB_STALE,           /* generation other than expected */
    VB_TORN,            /* header of one write, sectors of another */
    VB_ZEROES,          /* unwritten: the unit (or a sector of it) all zero */
    VB_WRONG_WRITER,    /* a good unit written by another agent/job than expected */
    VB__COUNT
};

const char *vblock_csum_name(enum vblock_csum c);   /* "off", "crc32c", ... */
/* verify= value to kind ("crc32c-intel" is crc32c; "off" is not a verify=
 * value); -1 if unknown. */
int vblock_csum_from_name(const char *s);
/* JSON/text name of a kind: "ok", "corrupt_checksum", "wrong_offset",
 * "wrong_file", "stale_generation", "torn", "zeroes", "wrong_writer". */
const char *vblock_kind_name(enum vblock_kind k);
int vblock_kind_from_name(const char *s);           /* -1 if unknown */

/* Who wrote a unit: filled by the writer, returned by the check. */
struct vblock_id {
    uint64_t file_id;
    uint64_t offset;
    uint32_t writer;
    uint32_t job;
    uint64_t gen;
    uint64_t time_ns;
    uint64_t run;              /* the writing run's id */
};

/* What a reader expects.  writer VBLOCK_ANY_WRITER and gen VBLOCK_ANY_GEN
 * accept any; job is never checked (threads of one agent may share a file).
 * run (0: any) is the run that must have written the unit, min_gen (0:
 * none) the oldest generation accepted; a good unit that fails either is
 * VB_STALE. */
struct vblock_expect {
    uint64_t file_id;
    uint64_t offset;
    uint32_t writer;
    uint64_t gen;
    uint64_t run;
    uint64_t min_gen;
};

/* Per-thread checker/filler state: the kind, the header position and, for
 * md5/sha256, a reusable libcrypto context.  init: 0 or -EINVAL (bad kind
 * or VB_CSUM_OFF), -ENOMEM.  pattern (for VB_CSUM_PATTERN) is copied. */
struct vblock_ctx {
    enum vblock_csum csum;
    uint32_t hdr_off;
    void *md;                  /* EVP_MD_CTX *, or NULL */
    void *crcpar;              /* crc32c: shift constants of its 3-way sum, or NULL */
    const void *evp;           /* const EVP_MD * */
    unsigned char pattern[256];
    size_t pattern_len;
};
int vblock_ctx_init(struct vblock_ctx *c, enum vblock_csum csum, uint32_t hdr_off,
                    const unsigned char *pattern, size_t pattern_len);
void vblock_ctx_close(struct vblock_ctx *c);

/* 1 when a unit of len bytes can carry the header at c->hdr_off. */
int vblock_unit_fits(const struct vblock_ctx *c, uint64_t len);

/* Stamp one unit of len bytes in place (header, sector stamps, checksum;
 * for pattern: the pattern over the whole unit; null: nothing).  The rest
 * of buf is left as it is: fill it once, stamp it per write. */
void vblock_fill(const struct vblock_ctx *c, void *buf, uint32_t len, const struct vblock_id *id);
/* Classify one unit read back; *found gets the header's identity when the
 * header was readable (else zeroes).  For pattern, only VB_OK, VB_ZEROES
 * and VB_CORRUPT. */
enum vblock_kind vblock_check(const struct vblock_ctx *c, const void *buf, uint32_t len,
                              const struct vblock_expect *e, struct vblock_id *found);

/* A stable id of a file: FNV-1a 64 of its path as the plan names it. */
uint64_t vblock_file_id(const char *path);
/* Generation of a write (see above): run_ms is the wall clock in ms since
 * the Unix epoch (earlier than 2024 counts as 2024). */
uint64_t vblock_generation(uint64_t run_ms, uint32_t phase, uint32_t pass);
/* The wall clock (ms since the Unix epoch) of the run that wrote gen: what
 * vblock_generation was given, to the ms; 0 for gen 0. */
uint64_t vblock_generation_ms(uint64_t gen);
/* A fresh run id (random, never 0). */
uint64_t vblock_run_new(void);
/* "%016llx" of a run id into out (17 bytes). */
void vblock_run_format(uint64_t run, char out[17]);
/* 16 hex digits (either case) to a run id: 0, or -EINVAL for anything
 * else (other lengths, other characters, all zero). */
int vblock_run_parse(const char *s, uint64_t *run);
/* len bytes at p: pat (plen > 0 bytes) repeated from p's first byte, the
 * last copy cut short (verify=pattern's units, wbuf's plain buffers). */
void vblock_pattern_fill(void *p, uint64_t len, const unsigned char *pat, size_t plen);
/* crc32c (Castagnoli), SSE4.2 when the CPU has it, else a table. */
uint32_t vblock_crc32c(uint32_t crc, const void *p, size_t n);

#endif
