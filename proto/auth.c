/* auth: see auth.h.  HMAC, randomness and constant-time comparison come
 * from libcrypto. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include "proto/auth.h"

int auth_load_secret(const char *path, struct auth_secret *s, char *err, size_t errlen)
{
    struct stat st;
    ssize_t n;
    /* O_NONBLOCK: opening a FIFO would otherwise wait for a writer forever;
     * it is refused below like anything else that is not a regular file */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "secret file %s: %s", path, strerror(e));
        return -e;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "secret file %s: not a regular file", path);
        close(fd);
        return -EINVAL;
    }
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        snprintf(err, errlen, "secret file %s is accessible by group or others (mode %03o): "
                 "chmod 600 it", path, (unsigned)(st.st_mode & 0777));
        close(fd);
        return -EPERM;
    }
    n = read(fd, s->key, sizeof s->key);
    close(fd);
    if (n < 0) {
        snprintf(err, errlen, "secret file %s: %s", path, strerror(errno));
        return -EIO;
    }
    if ((size_t)n == sizeof s->key) {
        snprintf(err, errlen, "secret file %s: larger than %d bytes", path, AUTH_SECRET_MAX - 1);
        return -EFBIG;
    }
    while (n > 0 && (s->key[n - 1] == '\n' || s->key[n - 1] == '\r'))
        n--;
    if (n < 16) {
        snprintf(err, errlen, "secret file %s: shorter than 16 bytes", path);
        return -EINVAL;
    }
    s->len = (size_t)n;
    return 0;
}

int auth_random_secret(struct auth_secret *s)
{
    s->len = 32;
    return RAND_bytes(s->key, (int)s->len) == 1 ? 0 : -EIO;
}

int auth_nonce(unsigned char nonce[AUTH_NONCE_LEN])
{
    return RAND_bytes(nonce, AUTH_NONCE_LEN) == 1 ? 0 : -EIO;
}

void auth_proof(const struct auth_secret *s, enum auth_role role,
                const unsigned char cnonce[AUTH_NONCE_LEN], const unsigned char anonce[AUTH_NONCE_LEN],
                unsigned char mac[AUTH_MAC_LEN])
{
    static const char *const labels[] = {
        [AUTH_AGENT] = "nfstorm agent v1", [AUTH_COORDINATOR] = "nfstorm coordinator v1",
        [AUTH_POOL] = "nfstorm pool v1", [AUTH_SUBMITTER] = "nfstorm submitter v1",
    };
    unsigned char msg[sizeof "nfstorm coordinator v1" + 2 * AUTH_NONCE_LEN];   /* the longest label */
    const char *label = labels[(unsigned)role <= AUTH_SUBMITTER ? role : AUTH_SUBMITTER];
    size_t n = strlen(label);
    unsigned int maclen = AUTH_MAC_LEN;
    int first_proves = role == AUTH_AGENT || role == AUTH_POOL;

    memcpy(msg, label, n);
    memcpy(msg + n, first_proves ? cnonce : anonce, AUTH_NONCE_LEN);
    memcpy(msg + n + AUTH_NONCE_LEN, first_proves ? anonce : cnonce, AUTH_NONCE_LEN);
    HMAC(EVP_sha256(), s->key, (int)s->len, msg, n + 2 * AUTH_NONCE_LEN, mac, &maclen);
}

int auth_check(const struct auth_secret *s, enum auth_role role,
               const unsigned char cnonce[AUTH_NONCE_LEN], const unsigned char anonce[AUTH_NONCE_LEN],
               const unsigned char mac[AUTH_MAC_LEN])
{
    unsigned char want[AUTH_MAC_LEN];
    auth_proof(s, role, cnonce, anonce, want);
    return CRYPTO_memcmp(want, mac, AUTH_MAC_LEN) == 0;
}
