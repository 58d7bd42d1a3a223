/* Unit tests for what dial-in agents are sorted and named by: the order of
 * joined agents (coordinator/gather: labels, then host, then address), the
 * label syntax (msg_labels_check), and welcome.labels on the wire (sent,
 * and optional: a welcome without it decodes with no labels). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <msgpack.h>

#include "coordinator/fleet/gather.h"
#include "proto/msg.h"
#include "tests/unit/msg_frame_util.h"

static struct gather_agent mk(const char *labels, const char *host, const char *ip, int port)
{
    struct gather_agent a;
    struct sockaddr_in *sin = (struct sockaddr_in *)&a.ss;
    memset(&a, 0, sizeof a);
    snprintf(a.welcome.labels, sizeof a.welcome.labels, "%s", labels);
    snprintf(a.welcome.host, sizeof a.welcome.host, "%s", host);
    sin->sin_family = AF_INET;
    sin->sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, ip, &sin->sin_addr);
    snprintf(a.addr, sizeof a.addr, "%s:%d", ip, port);
    return a;
}

static void test_gather_sort_label_host_address(void **state)
{
    struct gather_agent v[] = {
        mk("b", "h1", "10.0.0.1", 1),
        mk("", "zz", "10.0.0.9", 1),          /* no labels first */
        mk("a", "h2", "10.0.0.1", 1),
        mk("a", "h1", "10.0.0.10", 1),        /* numeric, not text, address order */
        mk("a", "h1", "10.0.0.9", 70),
        mk("a", "h1", "10.0.0.9", 8),         /* then the port, as a number */
    };
    const char *want[] = { "10.0.0.9:1", "10.0.0.9:8", "10.0.0.9:70", "10.0.0.10:1", "10.0.0.1:1",
                           "10.0.0.1:1" };
    (void)state;
    qsort(v, 6, sizeof v[0], gather_agent_cmp);
    for (int i = 0; i < 6; i++)
        assert_string_equal(v[i].addr, want[i]);
    assert_string_equal(v[0].welcome.labels, "");
    assert_string_equal(v[4].welcome.host, "h2");
    assert_string_equal(v[5].welcome.labels, "b");
}

static void test_gather_labels_check(void **state)
{
    char err[256];
    (void)state;
    assert_int_equal(msg_labels_check("", err, sizeof err), 0);
    assert_int_equal(msg_labels_check("zone-a,big.1,X_2", err, sizeof err), 0);
    const char *bad[] = { ",", "a,", ",a", "a,,b", "a b", "@a", "a\n", "é" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(msg_labels_check(bad[i], err, sizeof err), -EINVAL);
    char longl[80];
    memset(longl, 'a', 64);
    longl[64] = '\0';
    assert_int_equal(msg_labels_check(longl, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "longer than 63"));
    longl[63] = '\0';
    assert_int_equal(msg_labels_check(longl, err, sizeof err), 0);
}

static void test_gather_welcome_labels_wire(void **state)
{
    struct msg_welcome w, d;
    struct buf b;
    char err[256];
    (void)state;
    memset(&w, 0, sizeof w);
    w.version = PROTO_VERSION;
    snprintf(w.host, sizeof w.host, "h");
    snprintf(w.labels, sizeof w.labels, "zone-a,big");
    buf_init(&b);
    msg_welcome_encode(&b, &w);
    memset(&d, 0x55, sizeof d);
    assert_int_equal(DECODE(msg_welcome_decode, b.data + 4, b.len - 4, &d, err, sizeof err), 0);
    assert_string_equal(d.labels, "zone-a,big");
    buf_free(&b);

    /* an older agent's welcome: no "labels" key at all */
    msgpack_sbuffer sb;
    msgpack_packer pk;
    static const unsigned char zero[32];
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 8);
#define KEY(k) msgpack_pack_str(&pk, strlen(k)), msgpack_pack_str_body(&pk, k, strlen(k))
    KEY("type"); KEY("welcome");
    KEY("version"); msgpack_pack_uint32(&pk, PROTO_VERSION);
    KEY("host"); KEY("old");
    KEY("ncpus"); msgpack_pack_uint32(&pk, 2);
    KEY("pid"); msgpack_pack_uint32(&pk, 3);
    KEY("auth"); msgpack_pack_true(&pk);
    KEY("nonce"); msgpack_pack_bin(&pk, 32), msgpack_pack_bin_body(&pk, zero, 32);
    KEY("mac"); msgpack_pack_bin(&pk, 32), msgpack_pack_bin_body(&pk, zero, 32);
    memset(&d, 0x55, sizeof d);
    assert_int_equal(DECODE(msg_welcome_decode, sb.data, sb.size, &d, err, sizeof err), 0);
    assert_string_equal(d.host, "old");
    assert_string_equal(d.labels, "");
    msgpack_sbuffer_destroy(&sb);

    /* present but not a string: refused */
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 9);
    KEY("type"); KEY("welcome");
    KEY("version"); msgpack_pack_uint32(&pk, PROTO_VERSION);
    KEY("host"); KEY("old");
    KEY("ncpus"); msgpack_pack_uint32(&pk, 2);
    KEY("pid"); msgpack_pack_uint32(&pk, 3);
    KEY("auth"); msgpack_pack_true(&pk);
    KEY("nonce"); msgpack_pack_bin(&pk, 32), msgpack_pack_bin_body(&pk, zero, 32);
    KEY("mac"); msgpack_pack_bin(&pk, 32), msgpack_pack_bin_body(&pk, zero, 32);
    KEY("labels"); msgpack_pack_uint32(&pk, 5);
#undef KEY
    assert_int_equal(DECODE(msg_welcome_decode, sb.data, sb.size, &d, err, sizeof err), -EBADMSG);
    assert_non_null(strstr(err, "labels"));
    msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gather_sort_label_host_address),
        cmocka_unit_test(test_gather_labels_check),
        cmocka_unit_test(test_gather_welcome_labels_wire),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
