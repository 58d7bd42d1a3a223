/* Unit tests for net/ctlsock (the control connection's TOS, priority and
 * thin-stream timeouts): the --control-tos spellings, and what a marked
 * real loopback TCP socket reports back through getsockopt. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "net/ctlsock.h"

static void test_ctlsock_parse_tos_spellings(void **state)
{
    int tos = 1234;
    char s[16];
    (void)state;
    assert_int_equal(ctlsock_parse_tos("lowdelay", &tos), 0);
    assert_int_equal(tos, 0x10);
    assert_int_equal(ctlsock_parse_tos("none", &tos), 0);
    assert_int_equal(tos, CTLSOCK_TOS_NONE);
    assert_int_equal(ctlsock_parse_tos("dscp:46", &tos), 0);
    assert_int_equal(tos, 0xb8);
    assert_int_equal(ctlsock_parse_tos("dscp:0", &tos), 0);
    assert_int_equal(tos, 0);
    assert_int_equal(ctlsock_parse_tos("0xc0", &tos), 0);
    assert_int_equal(tos, 0xc0);
    assert_int_equal(ctlsock_parse_tos("16", &tos), 0);
    assert_int_equal(tos, 16);
    ctlsock_tos_str(0xb8, s, sizeof s);
    assert_string_equal(s, "0xb8");
    ctlsock_tos_str(CTLSOCK_TOS_NONE, s, sizeof s);
    assert_string_equal(s, "none");
}

static void test_ctlsock_parse_tos_refuses(void **state)
{
    static const char *bad[] = { "", "0x11", "3", "256", "-4", "dscp:64", "dscp:", "dscp:-1", "dscp:4x",
                                 "lowdelay ", "0x", "ef", "1e2" };
    int tos = 77;
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ctlsock_parse_tos(bad[i], &tos), -EINVAL);
        assert_int_equal(tos, 77);
    }
    assert_int_equal(ctlsock_parse_tos(NULL, &tos), -EINVAL);
}

static int getint(int fd, int level, int name)
{
    int v = -1;
    socklen_t l = sizeof v;
    assert_int_equal(getsockopt(fd, level, name, &v, &l), 0);
    return v;
}

static void on_closed(uv_handle_t *h)
{
    (*(int *)h->data)++;
}

/* A connected loopback TCP client, marked with tos; the options read back. */
static void mark_and_check(int tos)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t sl = sizeof sa;
    int lfd = socket(AF_INET, SOCK_STREAM, 0), cfd = socket(AF_INET, SOCK_STREAM, 0);
    uv_loop_t loop;
    uv_tcp_t t;
    int closed = 0, prio0;

    assert_true(lfd >= 0 && cfd >= 0);
    assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(lfd, 1), 0);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
    assert_int_equal(connect(cfd, (struct sockaddr *)&sa, sizeof sa), 0);
    prio0 = getint(cfd, SOL_SOCKET, SO_PRIORITY);
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(uv_tcp_init(&loop, &t), 0);
    assert_int_equal(uv_tcp_open(&t, cfd), 0);
    assert_int_equal(ctlsock_mark(&t, tos), 0);
    if (tos == CTLSOCK_TOS_NONE) {            /* left as the system made it */
        assert_int_equal(getint(cfd, IPPROTO_IP, IP_TOS), 0);
        assert_int_equal(getint(cfd, SOL_SOCKET, SO_PRIORITY), prio0);
        assert_int_equal(getint(cfd, IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS), 0);
    } else {
        assert_int_equal(getint(cfd, IPPROTO_IP, IP_TOS), tos);
        assert_int_equal(getint(cfd, SOL_SOCKET, SO_PRIORITY), 6);   /* whatever the TOS made it */
        assert_int_equal(getint(cfd, IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS), 1);
    }
    t.data = &closed;
    uv_close((uv_handle_t *)&t, on_closed);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(closed, 1);
    assert_int_equal(uv_loop_close(&loop), 0);
    close(lfd);
}

static void test_ctlsock_mark_sets_tos_priority_thin(void **state)
{
    (void)state;
    mark_and_check(CTLSOCK_TOS_DEFAULT);
    mark_and_check(0xc0);       /* CS6: priority 0 from the TOS, 6 from us */
    mark_and_check(CTLSOCK_TOS_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ctlsock_parse_tos_spellings),
        cmocka_unit_test(test_ctlsock_parse_tos_refuses),
        cmocka_unit_test(test_ctlsock_mark_sets_tos_priority_thin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
