/* test_auth: proofs verify only with the same secret, role and nonces;
 * secret files with loose permissions or too short are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "proto/auth.h"

static void make_secret(struct auth_secret *s, const char *text)
{
    s->len = strlen(text);
    memcpy(s->key, text, s->len);
}

static void test_auth_proof_roundtrip(void **state)
{
    struct auth_secret s, other;
    unsigned char c[AUTH_NONCE_LEN], a[AUTH_NONCE_LEN], c2[AUTH_NONCE_LEN], mac[AUTH_MAC_LEN];
    (void)state;
    make_secret(&s, "0123456789abcdef-the-secret");
    make_secret(&other, "0123456789abcdef-the-secreT");
    assert_int_equal(auth_nonce(c), 0);
    assert_int_equal(auth_nonce(a), 0);
    assert_int_equal(auth_nonce(c2), 0);
    assert_memory_not_equal(c, a, AUTH_NONCE_LEN);

    auth_proof(&s, AUTH_AGENT, c, a, mac);
    assert_true(auth_check(&s, AUTH_AGENT, c, a, mac));
    assert_false(auth_check(&other, AUTH_AGENT, c, a, mac));       /* wrong secret */
    assert_false(auth_check(&s, AUTH_COORDINATOR, c, a, mac));     /* reflected to the other role */
    assert_false(auth_check(&s, AUTH_AGENT, c2, a, mac));          /* replayed on a new nonce */
    mac[5] ^= 1;
    assert_false(auth_check(&s, AUTH_AGENT, c, a, mac));

    auth_proof(&s, AUTH_COORDINATOR, c, a, mac);
    assert_true(auth_check(&s, AUTH_COORDINATOR, c, a, mac));
    assert_false(auth_check(&s, AUTH_COORDINATOR, c, c2, mac));
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static void test_auth_load_secret_checks(void **state)
{
    char dir[] = "/tmp/test_auth.XXXXXX", path[64], err[256];
    struct auth_secret s;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/secret", dir);

    write_file(path, "a-secret-of-enough-length\n", 0600);
    assert_int_equal(auth_load_secret(path, &s, err, sizeof err), 0);
    assert_int_equal(s.len, strlen("a-secret-of-enough-length"));   /* newline dropped */
    assert_memory_equal(s.key, "a-secret-of-enough-length", s.len);

    write_file(path, "a-secret-of-enough-length\n", 0644);
    assert_int_equal(auth_load_secret(path, &s, err, sizeof err), -EPERM);
    assert_non_null(strstr(err, "group or others"));

    write_file(path, "short\n", 0600);
    assert_int_equal(auth_load_secret(path, &s, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "shorter"));

    unlink(path);
    assert_int_equal(auth_load_secret(path, &s, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, path));

    /* a FIFO is refused at once (opening it must not wait for a writer) */
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(auth_load_secret(path, &s, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "not a regular file"));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auth_proof_roundtrip),
        cmocka_unit_test(test_auth_load_secret_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
