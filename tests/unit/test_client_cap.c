/* test_client_cap: --client-cap values (coordinator/fleet/client_cap.c), which
 * cap an agent gets by its labels, and the faster-than-the-link rule with
 * its text: the NIC counts only when it is on the route to the storage
 * server, the tighter limit names the flag, a read at or under it is not
 * flagged. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <stdlib.h>
#include "coordinator/fleet/client_cap.h"
#include "coordinator/report/client_json.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "tests/unit/msg_frame_util.h"

#define MIB (1024.0 * 1024.0)

static void test_client_cap_parse_rate(void **state)
{
    uint64_t v = 0;
    (void)state;
    assert_int_equal(client_cap_parse_rate("500MiB/s", &v), 0);
    assert_int_equal(v, 500ull << 20);
    assert_int_equal(client_cap_parse_rate("1GiB/s", &v), 0);
    assert_int_equal(v, 1ull << 30);
    assert_int_equal(client_cap_parse_rate("10m", &v), 0);
    assert_int_equal(v, 10ull << 20);
    assert_int_equal(client_cap_parse_rate("10Gbit/s", &v), 0);
    assert_int_equal(v, 1250000000ull);
    assert_int_equal(client_cap_parse_rate("80mbit/s", &v), 0);
    assert_int_equal(v, 10000000ull);
    v = 7;
    for (const char **b = (const char *[]){ "", "0", "0MiB/s", "fast", "10MiB/h", "-1m", "1e3", "/s",
                                            "0Gbit/s", "10 Gbit/s", NULL }; *b; b++)
        assert_int_equal(client_cap_parse_rate(*b, &v), -EINVAL);
    assert_int_equal(v, 7);
}

static void test_client_caps_by_label(void **state)
{
    struct client_caps c;
    char err[256];
    (void)state;
    memset(&c, 0, sizeof c);
    assert_int_equal(client_caps_for(&c, "big"), 0);
    assert_int_equal(client_caps_for(NULL, "big"), 0);
    assert_int_equal(client_caps_add(&c, "500MiB/s", err, sizeof err), 0);
    assert_int_equal(client_caps_add(&c, "big=1GiB/s", err, sizeof err), 0);
    assert_int_equal(client_caps_add(&c, "huge=4GiB/s", err, sizeof err), 0);
    assert_int_equal(client_caps_add(&c, "big=2GiB/s", err, sizeof err), 0);   /* replaces */
    assert_int_equal(c.n, 2);
    assert_int_equal(client_caps_for(&c, ""), 500ull << 20);
    assert_int_equal(client_caps_for(&c, "bigger"), 500ull << 20);   /* whole labels only */
    assert_int_equal(client_caps_for(&c, "rack1,big"), 2ull << 30);
    assert_int_equal(client_caps_for(&c, "big,huge"), 4ull << 30);   /* the largest claim */
    assert_int_equal(client_caps_add(&c, "=1g", err, sizeof err), -EINVAL);
    assert_int_equal(client_caps_add(&c, "a,b=1g", err, sizeof err), -EINVAL);
    assert_string_equal(err, "--client-cap a,b=1g: bad label: one label per --client-cap");
    assert_int_equal(client_caps_add(&c, "big=lots", err, sizeof err), -EINVAL);
    assert_string_equal(err, "--client-cap big=lots: want RATE or LABEL=RATE, a RATE like 500MiB/s or 10Gbit/s");
    assert_int_equal(client_caps_add(&c, "b d=1g", err, sizeof err), -EINVAL);
}

static void phase_of(struct agent_phase *ap, double read_bytes, double secs)
{
    memset(ap, 0, sizeof *ap);
    ap->done = 1;
    ap->duration_ns = (uint64_t)(secs * 1e9);
    ap->sealed.count[OP_READ].bytes = (uint64_t)read_bytes;
    ap->sealed.count[OP_READ].ops = 1;
}

static void host_of(struct host_sample *h, uint32_t speed, uint32_t route)
{
    memset(h, 0, sizeof *h);
    h->present = 1;
    snprintf(h->nic, sizeof h->nic, "eth0");
    h->speed_mbps = speed;
    h->nic_route = route;
}

static void test_client_cap_faster_rule(void **state)
{
    struct agent_phase ap;
    struct host_sample h;
    struct client_fast f;
    char text[160];
    (void)state;

    /* 2 GB/s read on a 10 Gbit/s (1.25 GB/s) link on the route: flagged by the NIC */
    phase_of(&ap, 4e9, 2.0);
    host_of(&h, 10000, 1);
    assert_int_equal(client_cap_faster(&ap, &h, 0, &f), 1);
    assert_true(f.read_bps == 2e9);
    assert_true(f.limit_bps == 1.25e9);
    assert_int_equal(f.nic_mbps, 10000);
    client_cap_text(&f, text, sizeof text);
    assert_string_equal(text, "faster than the link (NIC 10 Gbit/s): page cache or a client-side cache?");
    /* the same NIC found only as the control connection's: no claim */
    host_of(&h, 10000, 0);
    assert_int_equal(client_cap_faster(&ap, &h, 0, &f), 0);
    /* ... but a cap still judges */
    assert_int_equal(client_cap_faster(&ap, &h, 500ull << 20, &f), 1);
    assert_int_equal(f.nic_mbps, 0);
    assert_int_equal(f.cap_bps, 500ull << 20);
    client_cap_text(&f, text, sizeof text);
    assert_string_equal(text, "faster than the link (client cap 500MiB/s): page cache or a client-side cache?");
    /* the tighter limit names the flag: a 1 GiB/s cap under the 10 Gbit/s link */
    host_of(&h, 10000, 1);
    assert_int_equal(client_cap_faster(&ap, &h, 1ull << 30, &f), 1);
    assert_int_equal(f.cap_bps, 1ull << 30);
    assert_int_equal(client_cap_faster(&ap, &h, 100ull << 30, &f), 1);
    assert_int_equal(f.nic_mbps, 10000);
    /* an 80 Mbit/s read (10 MB/s) on that link: not flagged; exactly at a cap: not flagged */
    phase_of(&ap, 10e6 * 6, 6.0);
    assert_int_equal(client_cap_faster(&ap, &h, 0, &f), 0);
    assert_int_equal(client_cap_faster(&ap, &h, 10000000, &f), 0);
    assert_int_equal(client_cap_faster(&ap, &h, 9999999, &f), 1);
    /* 100 Mbit/s NIC: said in Mbit/s */
    phase_of(&ap, 100 * MIB, 1.0);
    host_of(&h, 100, 1);
    assert_int_equal(client_cap_faster(&ap, &h, 0, &f), 1);
    client_cap_text(&f, text, sizeof text);
    assert_string_equal(text, "faster than the link (NIC 100 Mbit/s): page cache or a client-side cache?");
    /* unknown speed, no cap, no reads, no time: no claim */
    host_of(&h, 0, 1);
    assert_int_equal(client_cap_faster(&ap, &h, 0, &f), 0);
    assert_int_equal(client_cap_faster(&ap, NULL, 0, &f), 0);
    phase_of(&ap, 0, 1.0);
    assert_int_equal(client_cap_faster(&ap, NULL, 1, &f), 0);
    phase_of(&ap, 1e9, 0);
    assert_int_equal(client_cap_faster(&ap, NULL, 1, &f), 0);
}

/* nic_route crosses the wire (an optional key: sent only when 1) and the
 * JSON (nic.route) and comes back, so a re-render judges as the run did. */
static void test_client_cap_nic_route_round_trip(void **state)
{
    for (uint32_t route = 0; route < 2; route++) {
        struct msg_interval in, out;
        struct client_sample back;
        struct buf b;
        char err[256];
        json_t *j;
        (void)state;
        memset(&in, 0, sizeof in);
        op_set_init(&in.stats);
        in.client.host.present = 1;
        snprintf(in.client.host.nic, sizeof in.client.host.nic, "veth0");
        in.client.host.speed_mbps = 10000;
        in.client.host.nic_route = route;
        buf_init(&b);
        msg_interval_encode(&b, &in);
        assert_int_equal(DECODE(msg_interval_decode, b.data + 4, (uint32_t)(b.len - 4), &out, err, sizeof err), 0);
        assert_int_equal(out.client.host.present, 1);
        assert_int_equal(out.client.host.nic_route, route);
        assert_int_equal(out.client.host.speed_mbps, 10000);
        msg_interval_free(&out);
        buf_free(&b);
        j = json_pack("{so}", "host", client_json_host(&in.client.host, 1.0));
        assert_int_equal(client_json_parse(j, &back, err, sizeof err), 0);
        assert_int_equal(back.host.nic_route, route);
        json_decref(j);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_client_cap_parse_rate),
        cmocka_unit_test(test_client_caps_by_label),
        cmocka_unit_test(test_client_cap_faster_rule),
        cmocka_unit_test(test_client_cap_nic_route_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
