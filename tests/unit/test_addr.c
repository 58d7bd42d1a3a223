/* Unit tests for net/addr (HOST:PORT of a listening socket). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "net/addr.h"

static void test_addr_parse_listen_ipv4(void **state)
{
    struct sockaddr_storage ss;
    const struct sockaddr_in *in = (const void *)&ss;
    (void)state;
    assert_int_equal(addr_parse_listen("127.0.0.1:7878", &ss), 0);
    assert_int_equal(ss.ss_family, AF_INET);
    assert_int_equal(ntohs(in->sin_port), 7878);
    assert_int_equal(ntohl(in->sin_addr.s_addr), 0x7f000001u);
    assert_int_equal(addr_parse_listen("0.0.0.0:0", &ss), 0);
    assert_int_equal(ntohs(in->sin_port), 0);
    assert_int_equal(in->sin_addr.s_addr, 0);
    assert_int_equal(addr_parse_listen("10.1.2.3:65535", &ss), 0);
    assert_int_equal(ntohs(in->sin_port), 65535);
    assert_int_equal(ntohl(in->sin_addr.s_addr), 0x0a010203u);
}

static void test_addr_parse_listen_ipv6(void **state)
{
    struct sockaddr_storage ss;
    const struct sockaddr_in6 *in6 = (const void *)&ss;
    struct in6_addr lo = IN6ADDR_LOOPBACK_INIT;
    (void)state;
    assert_int_equal(addr_parse_listen("[::1]:99", &ss), 0);
    assert_int_equal(ss.ss_family, AF_INET6);
    assert_int_equal(ntohs(in6->sin6_port), 99);
    assert_memory_equal(&in6->sin6_addr, &lo, sizeof lo);
    /* the last colon splits, so an unbracketed literal works too */
    memset(&ss, 0, sizeof ss);
    assert_int_equal(addr_parse_listen("::1:7878", &ss), 0);
    assert_int_equal(ss.ss_family, AF_INET6);
    assert_int_equal(ntohs(in6->sin6_port), 7878);
    assert_memory_equal(&in6->sin6_addr, &lo, sizeof lo);
}

static void test_addr_parse_listen_bad(void **state)
{
    struct sockaddr_storage ss;
    char longhost[300];
    (void)state;
    const char *bad[] = { "", "7878", "127.0.0.1", "127.0.0.1:", ":7878", "127.0.0.1:65536",
                          "127.0.0.1:-1", "127.0.0.1:7x", "localhost:7878",
                          "[]:5", "[:5", "[::1:5", "1.2.3:5", "300.0.0.1:5" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(addr_parse_listen(bad[i], &ss), -EINVAL);
    /* a host of 255 bytes is the most the parser copies */
    memset(longhost, '1', sizeof longhost);
    memcpy(longhost + 256, ":80", 4);
    assert_int_equal(addr_parse_listen(longhost, &ss), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_addr_parse_listen_ipv4),
        cmocka_unit_test(test_addr_parse_listen_ipv6),
        cmocka_unit_test(test_addr_parse_listen_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
