/* auth: the shared-secret mutual authentication of coordinator and agent.
 *
 * Both sides hold the same secret (a file, never sent).  Each side sends a
 * fresh random nonce; each proves knowledge of the secret with
 * HMAC-SHA256(secret, role || nonce_mine_or_theirs...) over both nonces, so
 * a recorded proof is useless on a new connection (the peer's nonce
 * differs) and neither side can be replayed against the other.  Crypto is
 * OpenSSL's libcrypto; nothing here is hand-written.
 *
 *   agent proof       = HMAC(secret, "nfstorm agent v1" || cnonce || anonce)
 *   coordinator proof = HMAC(secret, "nfstorm coordinator v1" || anonce || cnonce) */
#ifndef NFSTORM_AUTH_H
#define NFSTORM_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define AUTH_NONCE_LEN  32
#define AUTH_MAC_LEN    32
#define AUTH_SECRET_MAX 4096

struct auth_secret {
    unsigned char key[AUTH_SECRET_MAX];
    size_t len;
};

/* AUTH_POOL and AUTH_SUBMITTER are the pool's pair (nfstorm serve proves
 * itself to a submitter, which proves back): labels of their own, so no
 * proof made for one pair is ever good for the other. */
enum auth_role { AUTH_AGENT, AUTH_COORDINATOR, AUTH_POOL, AUTH_SUBMITTER };

/* Read a secret file: refused if group or others may read it, if empty or
 * larger than AUTH_SECRET_MAX; trailing newlines are not part of the
 * secret.  0 or -errno with a one-line reason in err. */
int auth_load_secret(const char *path, struct auth_secret *s, char *err, size_t errlen);
/* Generate a random secret (for --local's own agents). */
int auth_random_secret(struct auth_secret *s);
/* Fresh random nonce. 0 or -EIO. */
int auth_nonce(unsigned char nonce[AUTH_NONCE_LEN]);
/* The proof `role` sends. */
void auth_proof(const struct auth_secret *s, enum auth_role role,
                const unsigned char cnonce[AUTH_NONCE_LEN], const unsigned char anonce[AUTH_NONCE_LEN],
                unsigned char mac[AUTH_MAC_LEN]);
/* 1 if mac is role's proof, in constant time. */
int auth_check(const struct auth_secret *s, enum auth_role role,
               const unsigned char cnonce[AUTH_NONCE_LEN], const unsigned char anonce[AUTH_NONCE_LEN],
               const unsigned char mac[AUTH_MAC_LEN]);

#endif
