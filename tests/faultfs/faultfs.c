/* faultfs: a deliberately faulty passthrough file system for the tests of
 * nfstorm's verification (docs/verify.md, "How the checks are tested").
 *
 * It mirrors a backing directory (libfuse3, high-level API) and injects the
 * faults a shared file system can commit, each selected by a rule:
 *
 *   drop     a write is acknowledged, but its bytes inside the rule's range
 *            are not stored (the rest of the write is; the file's size
 *            grows as the write said, so lost bytes past the old end read
 *            as zeroes)
 *   stale    after a write, reads of the written range return the content
 *            it replaced until ms= milliseconds have passed (a data cache
 *            with a delay)
 *   wcorrupt a write is stored with one byte flipped (xor 0xff)
 *   rcorrupt a read returns one byte flipped (the stored data is intact)
 *   torn     a write stores only its first keep= bytes (default: half the
 *            write, rounded down to 512), then is acknowledged in full
 *            (the size grows as for drop)
 *   zeroes   a read returns zeroes for the part inside the rule's range
 *   nospc    a write or fallocate fails with ENOSPC, while statfs still
 *            reports the backing file system's free space (a disk that
 *            someone else filled after it was checked)
 *   eio      a read fails with EIO (a bad sector, a server's I/O error)
 *   slow     a fallocate takes ms= milliseconds longer (a preallocation
 *            the file system does by writing, as glibc's posix_fallocate
 *            does where fallocate is missing, on a slow disk)
 *   wslow    a write takes ms= milliseconds longer, then is stored (a
 *            stuck mount that recovers: the writer's thread hangs while
 *            the rest of its process goes on)
 *
 * Rule syntax: KIND[,key=value]... with keys
 *   file=GLOB  fnmatch(3) pattern on the path below the mount, no leading
 *              '/' ('*' also matches '/'); default '*'
 *   off=N      the range [off, off+len) an I/O must overlap; default 0
 *   len=N      default: to the end of the file (k/m/g suffixes accepted)
 *   skip=N     let the first N matching I/Os through
 *   every=N    then fire on every Nth matching I/O (default 1)
 *   count=N    fire at most N times (default 0: no limit)
 *   ms=N       stale: how long the previous content stays visible;
 *              slow: how much longer a fallocate takes; wslow: a write
 *   keep=N     torn: bytes of the write that are stored
 *   at=N       wcorrupt/rcorrupt: the byte flipped, counted from the start
 *              of the I/O's overlap with the range (default: the middle of
 *              the overlap)
 * A matching I/O is one of the rule's direction (writes for drop, stale,
 * wcorrupt, torn, wslow; writes and fallocates for nospc; fallocates for slow; reads for rcorrupt,
 * zeroes, eio) on a matching file that
 * overlaps the range.  Of the write rules, the first that fires changes how
 * a write is stored (stale combines with any of them; do not combine it
 * with nospc, whose refused write would still arm it).
 *
 * Rules come from --rule SPEC on the command line, or at any time from
 * lines written to the control file /.faultfs in the mount (not listed by
 * readdir): a rule line adds a rule, "clear" removes all rules and pending
 * stale data, "reset" zeroes the rules' counters.
 *
 * Every injected fault is logged (--log FILE, appended, one line each):
 *   kind=K file=F off=O len=L io_off=IO io_len=IL t_ns=T
 * where [off, off+len) is what the fault affected (the dropped bytes; the
 * flipped byte, len=1; the bytes a tear did not store; the zeroed bytes; a
 * stale write's range, logged when written, and once more as kind=stale-read
 * the first time a read is served the old content), io_* the I/O and t_ns
 * the wall clock (CLOCK_REALTIME).
 *
 * The kernel's page cache would hide most faults (a read served from pages
 * the write filled never reaches us), so the mount is direct_io with no
 * attribute or entry caching unless --cache is given.
 *
 * A test tool only (built by `make faultfs`, never installed); one mutex
 * serialises everything (tests need faults, not speed) but a slow rule's
 * delay, which is slept outside it so other I/O goes on. */
#define FUSE_USE_VERSION 31
#include <fuse.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define FFS_CTL        ".faultfs"
#define FFS_MAX_RULES  64
#define FFS_MAX_STALE  4096          /* pending stale ranges ... */
#define FFS_MAX_STALE_BYTES (256u << 20)   /* ... and the bytes they hold */
#define FFS_PAT_MAX    256

enum ffs_kind { K_DROP, K_STALE, K_WCORRUPT, K_RCORRUPT, K_TORN, K_ZEROES, K_NOSPC, K_SLOW, K_WSLOW, K_EIO, K__COUNT };
static const char *const kind_names[K__COUNT] = {
    "drop", "stale", "wcorrupt", "rcorrupt", "torn", "zeroes", "nospc", "slow", "wslow", "eio",
};

struct ffs_rule {
    enum ffs_kind kind;
    char pat[FFS_PAT_MAX];
    uint64_t lo, hi;            /* [lo, hi) */
    uint64_t skip, every, count;
    uint64_t ms, keep, at;
    int has_keep, has_at;
    uint64_t seen, fired;
};

struct ffs_stale {
    char *path;
    uint64_t off;
    size_t len;
    unsigned char *old;
    uint64_t expire_ns;         /* CLOCK_MONOTONIC */
    int served;
    struct ffs_stale *next;     /* newest first */
};

struct ffs {
    int root;                   /* backing directory */
    int cache;                  /* --cache: leave the kernel's caches on */
    FILE *log;
    pthread_mutex_t mu;
    struct ffs_rule rules[FFS_MAX_RULES];
    int nrules;
    struct ffs_stale *stale;
    int nstale;
    uint64_t stale_bytes;
};

static struct ffs *ffs_get(void) { return fuse_get_context()->private_data; }

static uint64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The backing path of a FUSE path: relative to the root fd. */
static const char *rel(const char *path)
{
    while (*path == '/') path++;
    return *path ? path : ".";
}

static int is_ctl(const char *path) { return strcmp(rel(path), FFS_CTL) == 0; }

static void ffs_log(struct ffs *f, const char *kind, const char *path, uint64_t off, uint64_t len,
                    uint64_t io_off, uint64_t io_len)
{
    if (!f->log) return;
    fprintf(f->log, "kind=%s file=%s off=%" PRIu64 " len=%" PRIu64 " io_off=%" PRIu64
            " io_len=%" PRIu64 " t_ns=%" PRIu64 "\n", kind, rel(path), off, len, io_off, io_len,
            now_ns(CLOCK_REALTIME));
    fflush(f->log);
}

/* ---- rules ---- */

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s) return -1;
    uint64_t m = 1;
    switch (*end) {
    case 'k': case 'K': m = 1ull << 10; end++; break;
    case 'm': case 'M': m = 1ull << 20; end++; break;
    case 'g': case 'G': m = 1ull << 30; end++; break;
    default: break;
    }
    if (*end || (v && m > UINT64_MAX / v)) return -1;
    *out = v * m;
    return 0;
}

/* Parse one rule; 0, or -1 with a message in err. */
static int rule_parse(const char *spec, struct ffs_rule *r, char *err, size_t errlen)
{
    char buf[1024];
    if (strlen(spec) >= sizeof buf) { snprintf(err, errlen, "rule too long"); return -1; }
    strcpy(buf, spec);
    memset(r, 0, sizeof *r);
    strcpy(r->pat, "*");
    r->hi = UINT64_MAX;
    r->every = 1;
    uint64_t len = UINT64_MAX;
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    if (!tok) { snprintf(err, errlen, "empty rule"); return -1; }
    int k;
    for (k = 0; k < K__COUNT && strcmp(tok, kind_names[k]); k++) {}
    if (k == K__COUNT) { snprintf(err, errlen, "unknown fault kind '%s'", tok); return -1; }
    r->kind = (enum ffs_kind)k;
    while ((tok = strtok_r(NULL, ",", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq) { snprintf(err, errlen, "'%s' is not key=value", tok); return -1; }
        *eq = '\0';
        const char *key = tok, *val = eq + 1;
        uint64_t v = 0;
        if (!strcmp(key, "file")) {
            if (strlen(val) >= sizeof r->pat || !*val) { snprintf(err, errlen, "bad file="); return -1; }
            strcpy(r->pat, val);
            continue;
        }
        if (parse_size(val, &v)) { snprintf(err, errlen, "%s=%s is not a number", key, val); return -1; }
        if (!strcmp(key, "off")) r->lo = v;
        else if (!strcmp(key, "len")) len = v;
        else if (!strcmp(key, "skip")) r->skip = v;
        else if (!strcmp(key, "every")) r->every = v;
        else if (!strcmp(key, "count")) r->count = v;
        else if (!strcmp(key, "ms")) r->ms = v;
        else if (!strcmp(key, "keep")) { r->keep = v; r->has_keep = 1; }
        else if (!strcmp(key, "at")) { r->at = v; r->has_at = 1; }
        else { snprintf(err, errlen, "unknown key '%s'", key); return -1; }
    }
    if (!r->every) { snprintf(err, errlen, "every=0"); return -1; }
    if (len == 0) { snprintf(err, errlen, "len=0"); return -1; }
    r->hi = len > UINT64_MAX - r->lo ? UINT64_MAX : r->lo + len;
    if ((r->kind == K_STALE || r->kind == K_SLOW || r->kind == K_WSLOW) && !r->ms) {
        snprintf(err, errlen, "%s needs ms=", kind_names[r->kind]);
        return -1;
    }
    return 0;
}

static int rule_add(struct ffs *f, const char *spec, char *err, size_t errlen)
{
    struct ffs_rule r;
    if (rule_parse(spec, &r, err, errlen)) return -1;
    if (f->nrules == FFS_MAX_RULES) { snprintf(err, errlen, "more than %d rules", FFS_MAX_RULES); return -1; }
    f->rules[f->nrules++] = r;
    return 0;
}

static int is_write_kind(enum ffs_kind k)
{
    return k == K_DROP || k == K_STALE || k == K_WCORRUPT || k == K_TORN || k == K_NOSPC;
}

static int is_read_kind(enum ffs_kind k) { return k == K_RCORRUPT || k == K_ZEROES || k == K_EIO; }

/* Does rule r match this I/O; if so, count it and say whether it fires.
 * olo and ohi get the overlap. */
static int rule_fires(struct ffs_rule *r, const char *path, uint64_t off, uint64_t len,
                      uint64_t *olo, uint64_t *ohi)
{
    uint64_t end = off + len;
    if (len == 0 || end <= r->lo || off >= r->hi) return 0;
    if (fnmatch(r->pat, rel(path), 0) != 0) return 0;
    r->seen++;
    if (r->seen <= r->skip || (r->seen - r->skip) % r->every) return 0;
    if (r->count && r->fired >= r->count) return 0;
    r->fired++;
    *olo = off > r->lo ? off : r->lo;
    *ohi = end < r->hi ? end : r->hi;
    return 1;
}

static uint64_t flip_pos(const struct ffs_rule *r, uint64_t olo, uint64_t ohi)
{
    uint64_t n = ohi - olo;
    uint64_t at = r->has_at ? r->at : n / 2;
    return olo + (at < n ? at : n - 1);
}

/* ---- stale data ---- */

static void stale_free(struct ffs_stale *s)
{
    free(s->path);
    free(s->old);
    free(s);
}

static void stale_clear(struct ffs *f)
{
    while (f->stale) {
        struct ffs_stale *s = f->stale;
        f->stale = s->next;
        stale_free(s);
    }
    f->nstale = 0;
    f->stale_bytes = 0;
}

/* Remember what [off, off+len) of fd holds before a write replaces it; 0,
 * or -1 when the caps are reached (the fault is then not injected, nor
 * logged). */
static int stale_arm(struct ffs *f, int fd, const char *path, uint64_t off, size_t len, uint64_t ms)
{
    if (f->nstale >= FFS_MAX_STALE || f->stale_bytes + len > FFS_MAX_STALE_BYTES) return -1;
    struct ffs_stale *s = calloc(1, sizeof *s);
    if (!s) return -1;
    s->old = calloc(1, len ? len : 1);
    s->path = strdup(rel(path));
    if (!s->old || !s->path) { stale_free(s); return -1; }
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, s->old + got, len - got, (off_t)(off + got));
        if (n <= 0) break;          /* beyond the end: zeroes */
        got += (size_t)n;
    }
    s->off = off;
    s->len = len;
    s->expire_ns = now_ns(CLOCK_MONOTONIC) + ms * 1000000u;
    s->next = f->stale;
    f->stale = s;
    f->nstale++;
    f->stale_bytes += len;
    return 0;
}

/* Overlay the old content of unexpired stale ranges on a read of
 * [off, off+n): newest first, so the oldest pending write's "before" wins
 * (what the range held ms ago). */
static void stale_apply(struct ffs *f, const char *path, unsigned char *buf, uint64_t off, size_t n,
                        size_t io_len)
{
    uint64_t now = now_ns(CLOCK_MONOTONIC);
    struct ffs_stale **pp = &f->stale;
    while (*pp) {
        struct ffs_stale *s = *pp;
        if (s->expire_ns <= now) {
            *pp = s->next;
            f->nstale--;
            f->stale_bytes -= s->len;
            stale_free(s);
            continue;
        }
        pp = &s->next;
        uint64_t lo = off > s->off ? off : s->off;
        uint64_t hi = off + n < s->off + s->len ? off + n : s->off + s->len;
        if (lo >= hi || strcmp(s->path, rel(path))) continue;
        memcpy(buf + (lo - off), s->old + (lo - s->off), hi - lo);
        if (!s->served) {
            s->served = 1;
            ffs_log(f, "stale-read", path, lo, hi - lo, off, io_len);
        }
    }
}

/* ---- file system operations ---- */

static void *ffs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    (void)conn;
    struct ffs *f = fuse_get_context()->private_data;
    cfg->use_ino = 1;
    cfg->hard_remove = 1;
    if (!f->cache) {
        cfg->direct_io = 1;
        cfg->kernel_cache = 0;
        cfg->auto_cache = 0;
        cfg->attr_timeout = 0;
        cfg->entry_timeout = 0;
        cfg->negative_timeout = 0;
    }
    return f;
}

static int ffs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    if (is_ctl(path)) {
        memset(st, 0, sizeof *st);
        st->st_mode = S_IFREG | 0600;
        st->st_nlink = 1;
        return 0;
    }
    int rc = fi ? fstat((int)fi->fh, st) : fstatat(ffs_get()->root, rel(path), st, AT_SYMLINK_NOFOLLOW);
    return rc ? -errno : 0;
}

static int ffs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)off; (void)fi; (void)flags;
    int fd = openat(ffs_get()->root, rel(path), O_RDONLY | O_DIRECTORY);
    if (fd < 0) return -errno;
    DIR *d = fdopendir(fd);
    if (!d) { int e = errno; close(fd); return -e; }
    struct dirent *de;
    while ((de = readdir(d))) {
        struct stat st = { .st_ino = de->d_ino, .st_mode = (mode_t)de->d_type << 12 };
        if (fill(buf, de->d_name, &st, 0, 0)) break;
    }
    closedir(d);
    return 0;
}

static int ffs_open(const char *path, struct fuse_file_info *fi)
{
    if (is_ctl(path)) { fi->fh = (uint64_t)-1; fi->direct_io = 1; return 0; }
    /* the backing file is ours alone: O_DIRECT there buys nothing */
    int fd = openat(ffs_get()->root, rel(path), fi->flags & ~(O_DIRECT | O_CREAT | O_EXCL));
    if (fd < 0) return -errno;
    fi->fh = (uint64_t)fd;
    return 0;
}

static int ffs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    if (is_ctl(path)) return -EEXIST;
    int fd = openat(ffs_get()->root, rel(path), (fi->flags & ~O_DIRECT) | O_CREAT, mode);
    if (fd < 0) return -errno;
    fi->fh = (uint64_t)fd;
    return 0;
}

static int ffs_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    if ((int)fi->fh >= 0) close((int)fi->fh);
    return 0;
}

static int ffs_ctl_write(struct ffs *f, const char *buf, size_t size)
{
    char line[1024];
    size_t i = 0;
    while (i < size) {
        size_t j = i;
        while (j < size && buf[j] != '\n') j++;
        size_t n = j - i;
        if (n >= sizeof line) return -EINVAL;
        memcpy(line, buf + i, n);
        line[n] = '\0';
        i = j + 1;
        if (!n) continue;
        char err[128];
        if (!strcmp(line, "clear")) { f->nrules = 0; stale_clear(f); }
        else if (!strcmp(line, "reset")) {
            for (int r = 0; r < f->nrules; r++) f->rules[r].seen = f->rules[r].fired = 0;
        } else if (rule_add(f, line, err, sizeof err)) {
            fprintf(stderr, "faultfs: %s: %s\n", line, err);
            return -EINVAL;
        }
    }
    return (int)size;
}

/* pwrite all of [p, p+n) at off; 0 or -errno. */
static int write_all(int fd, const unsigned char *p, size_t n, uint64_t off)
{
    while (n) {
        ssize_t w = pwrite(fd, p, n, (off_t)off);
        if (w < 0) return -errno;
        p += w; n -= (size_t)w; off += (uint64_t)w;
    }
    return 0;
}

/* wslow: the delay of a write, slept outside the lock (other I/O goes on). */
static void write_delay(struct ffs *f, const char *path, uint64_t off, size_t size)
{
    uint64_t delay_ms = 0;
    pthread_mutex_lock(&f->mu);
    for (int i = 0; i < f->nrules; i++) {
        struct ffs_rule *r = &f->rules[i];
        uint64_t lo, hi;
        if (r->kind == K_WSLOW && rule_fires(r, path, off, size, &lo, &hi)) {
            ffs_log(f, "wslow", path, lo, hi - lo, off, size);
            delay_ms += r->ms;
        }
    }
    pthread_mutex_unlock(&f->mu);
    if (delay_ms) {
        struct timespec ts = { (time_t)(delay_ms / 1000), (long)(delay_ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
    }
}

static int ffs_write(const char *path, const char *buf, size_t size, off_t off_,
                     struct fuse_file_info *fi)
{
    struct ffs *f = ffs_get();
    uint64_t off = (uint64_t)off_;
    int fd = (int)fi->fh, rc = 0;
    if (!is_ctl(path))
        write_delay(f, path, off, size);
    pthread_mutex_lock(&f->mu);
    if (is_ctl(path)) { rc = ffs_ctl_write(f, buf, size); goto out; }
    const unsigned char *src = (const unsigned char *)buf;
    struct ffs_rule *act = NULL;
    uint64_t alo = 0, ahi = 0;
    for (int i = 0; i < f->nrules; i++) {
        struct ffs_rule *r = &f->rules[i];
        uint64_t lo, hi;
        if (!is_write_kind(r->kind) || !rule_fires(r, path, off, size, &lo, &hi)) continue;
        if (r->kind == K_STALE) {
            if (stale_arm(f, fd, path, off, size, r->ms) == 0)
                ffs_log(f, "stale", path, off, size, off, size);
        } else if (!act) {
            act = r; alo = lo; ahi = hi;
        }
    }
    if (!act) { rc = write_all(fd, src, size, off); goto done; }
    /* the lost bytes' size is kept: a dropped or torn write past the end
     * leaves a hole (reads see zeroes), not a short file */
    struct stat st;
    if ((act->kind == K_DROP || act->kind == K_TORN) && !fstat(fd, &st) &&
        (uint64_t)st.st_size < off + size && ftruncate(fd, (off_t)(off + size))) {
        rc = -errno;
        goto done;
    }
    switch (act->kind) {
    case K_DROP:    /* store what lies outside [alo, ahi) */
        if ((rc = write_all(fd, src, alo - off, off))) break;
        rc = write_all(fd, src + (ahi - off), off + size - ahi, ahi);
        ffs_log(f, "drop", path, alo, ahi - alo, off, size);
        break;
    case K_TORN: {
        uint64_t keep = act->has_keep ? act->keep : (size / 2) & ~(uint64_t)511;
        if (keep > size) keep = size;
        rc = write_all(fd, src, keep, off);
        ffs_log(f, "torn", path, off + keep, size - keep, off, size);
        break;
    }
    case K_WCORRUPT: {
        unsigned char *copy = malloc(size);
        if (!copy) { rc = -ENOMEM; break; }
        memcpy(copy, src, size);
        uint64_t at = flip_pos(act, alo, ahi);
        copy[at - off] ^= 0xff;
        rc = write_all(fd, copy, size, off);
        free(copy);
        ffs_log(f, "wcorrupt", path, at, 1, off, size);
        break;
    }
    case K_NOSPC:
        rc = -ENOSPC;
        ffs_log(f, "nospc", path, alo, ahi - alo, off, size);
        break;
    default:
        rc = write_all(fd, src, size, off);
        break;
    }
done:
    if (!rc) rc = (int)size;
out:
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int ffs_read(const char *path, char *buf, size_t size, off_t off_, struct fuse_file_info *fi)
{
    struct ffs *f = ffs_get();
    uint64_t off = (uint64_t)off_;
    if (is_ctl(path)) return 0;
    size_t got = 0;
    while (got < size) {
        ssize_t n = pread((int)fi->fh, buf + got, size - got, (off_t)(off + got));
        if (n < 0) return -errno;
        if (n == 0) break;
        got += (size_t)n;
    }
    pthread_mutex_lock(&f->mu);
    unsigned char *b = (unsigned char *)buf;
    stale_apply(f, path, b, off, got, size);
    for (int i = 0; i < f->nrules; i++) {
        struct ffs_rule *r = &f->rules[i];
        uint64_t lo, hi;
        if (!is_read_kind(r->kind) || !rule_fires(r, path, off, got, &lo, &hi)) continue;
        if (r->kind == K_EIO) {     /* the whole read fails, whatever else matched */
            ffs_log(f, "eio", path, lo, hi - lo, off, got);
            pthread_mutex_unlock(&f->mu);
            return -EIO;
        }
        if (r->kind == K_ZEROES) {
            memset(b + (lo - off), 0, hi - lo);
            ffs_log(f, "zeroes", path, lo, hi - lo, off, got);
        } else {
            uint64_t at = flip_pos(r, lo, hi);
            b[at - off] ^= 0xff;
            ffs_log(f, "rcorrupt", path, at, 1, off, got);
        }
    }
    pthread_mutex_unlock(&f->mu);
    return (int)got;
}

static int ffs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    if (is_ctl(path)) return 0;
    int fd = fi ? (int)fi->fh : openat(ffs_get()->root, rel(path), O_WRONLY);
    if (fd < 0) return -errno;
    int rc = ftruncate(fd, size) ? -errno : 0;
    if (!fi) close(fd);
    return rc;
}

static int ffs_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
    struct ffs *f = ffs_get();
    uint64_t delay_ms = 0;
    if (mode & ~FALLOC_FL_KEEP_SIZE) return -EOPNOTSUPP;
    pthread_mutex_lock(&f->mu);
    /* a refusal first: a slow rule then neither fires nor counts */
    for (int i = 0; i < f->nrules; i++) {
        struct ffs_rule *r = &f->rules[i];
        uint64_t lo, hi;
        if (r->kind == K_NOSPC && rule_fires(r, path, (uint64_t)off, (uint64_t)len, &lo, &hi)) {
            ffs_log(f, "nospc", path, lo, hi - lo, (uint64_t)off, (uint64_t)len);
            pthread_mutex_unlock(&f->mu);
            return -ENOSPC;
        }
    }
    for (int i = 0; i < f->nrules; i++) {
        struct ffs_rule *r = &f->rules[i];
        uint64_t lo, hi;
        if (r->kind == K_SLOW && rule_fires(r, path, (uint64_t)off, (uint64_t)len, &lo, &hi)) {
            ffs_log(f, "slow", path, lo, hi - lo, (uint64_t)off, (uint64_t)len);
            delay_ms += r->ms;
        }
    }
    pthread_mutex_unlock(&f->mu);
    if (delay_ms) {                   /* outside the lock: other I/O goes on */
        struct timespec ts = { (time_t)(delay_ms / 1000), (long)(delay_ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
    }
    if (mode)
        return fallocate((int)fi->fh, mode, off, len) < 0 ? -errno : 0;
    return -posix_fallocate((int)fi->fh, off, len);
}

static int ffs_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    if ((int)fi->fh < 0) return 0;
    return (datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh)) ? -errno : 0;
}

static int ffs_flush(const char *path, struct fuse_file_info *fi) { (void)path; (void)fi; return 0; }

static int ffs_unlink(const char *path)
{
    return unlinkat(ffs_get()->root, rel(path), 0) ? -errno : 0;
}

static int ffs_mkdir(const char *path, mode_t mode)
{
    return mkdirat(ffs_get()->root, rel(path), mode) ? -errno : 0;
}

static int ffs_rmdir(const char *path)
{
    return unlinkat(ffs_get()->root, rel(path), AT_REMOVEDIR) ? -errno : 0;
}

static int ffs_rename(const char *from, const char *to, unsigned int flags)
{
    if (flags) return -EINVAL;
    int root = ffs_get()->root;
    return renameat(root, rel(from), root, rel(to)) ? -errno : 0;
}

static int ffs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    (void)fi;
    return fchmodat(ffs_get()->root, rel(path), mode, 0) ? -errno : 0;
}

static int ffs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    (void)fi;
    return fchownat(ffs_get()->root, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

static int ffs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    (void)fi;
    if (is_ctl(path)) return 0;
    return utimensat(ffs_get()->root, rel(path), tv, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

static int ffs_statfs(const char *path, struct statvfs *st)
{
    (void)path;
    return fstatvfs(ffs_get()->root, st) ? -errno : 0;
}

static int ffs_access(const char *path, int mask)
{
    if (is_ctl(path)) return 0;
    return faccessat(ffs_get()->root, rel(path), mask, 0) ? -errno : 0;
}

static const struct fuse_operations ffs_ops = {
    .init = ffs_init,
    .getattr = ffs_getattr,
    .readdir = ffs_readdir,
    .open = ffs_open,
    .create = ffs_create,
    .release = ffs_release,
    .read = ffs_read,
    .write = ffs_write,
    .truncate = ffs_truncate,
    .fallocate = ffs_fallocate,
    .fsync = ffs_fsync,
    .flush = ffs_flush,
    .unlink = ffs_unlink,
    .mkdir = ffs_mkdir,
    .rmdir = ffs_rmdir,
    .rename = ffs_rename,
    .chmod = ffs_chmod,
    .chown = ffs_chown,
    .utimens = ffs_utimens,
    .statfs = ffs_statfs,
    .access = ffs_access,
};

static void usage(void)
{
    fprintf(stderr,
            "usage: faultfs [--log FILE] [--rule SPEC]... [--cache] BACKING_DIR MOUNTPOINT [fuse options]\n"
            "  SPEC: drop|stale|wcorrupt|rcorrupt|torn|zeroes|nospc|slow|wslow|eio[,file=GLOB][,off=N][,len=N]\n"
            "        [,skip=N][,every=N][,count=N][,ms=N][,keep=N][,at=N]\n"
            "  runs in the foreground; rules can also be written to MOUNTPOINT/" FFS_CTL "\n");
}

int main(int argc, char **argv)
{
    static struct ffs f;
    const char *logpath = NULL, *backing = NULL, *mnt = NULL;
    char err[128];
    char *fargv[64];
    int fargc = 0;
    pthread_mutex_init(&f.mu, NULL);
    fargv[fargc++] = argv[0];
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--log") && i + 1 < argc) logpath = argv[++i];
        else if (!strcmp(argv[i], "--rule") && i + 1 < argc) {
            if (rule_add(&f, argv[++i], err, sizeof err)) {
                fprintf(stderr, "faultfs: --rule %s: %s\n", argv[i], err);
                return 2;
            }
        } else if (!strcmp(argv[i], "--cache")) f.cache = 1;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { usage(); return 0; }
        else if (argv[i][0] == '-' && argv[i][1] == '-') {
            fprintf(stderr, "faultfs: unknown option %s\n", argv[i]);
            usage();
            return 2;
        } else if (!backing) backing = argv[i];
        else if (!mnt) { mnt = argv[i]; i++; break; }
    }
    if (!backing || !mnt) { usage(); return 2; }
    f.root = open(backing, O_RDONLY | O_DIRECTORY);
    if (f.root < 0) { fprintf(stderr, "faultfs: %s: %s\n", backing, strerror(errno)); return 2; }
    if (logpath && !(f.log = fopen(logpath, "a"))) {
        fprintf(stderr, "faultfs: --log %s: %s\n", logpath, strerror(errno));
        return 2;
    }
    fargv[fargc++] = (char *)"-f";
    fargv[fargc++] = (char *)"-o";
    /* (libfuse 3.14's fuse_main warns "Ignoring invalid max threads value":
     * its own default, harmless) */
    fargv[fargc++] = (char *)"fsname=faultfs,subtype=faultfs";
    for (; i < argc && fargc < 62; i++) fargv[fargc++] = argv[i];
    fargv[fargc++] = (char *)mnt;
    fargv[fargc] = NULL;
    int rc = fuse_main(fargc, fargv, &ffs_ops, &f);
    stale_clear(&f);
    if (f.log) fclose(f.log);
    close(f.root);
    return rc;
}
