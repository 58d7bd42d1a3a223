/* test_io_slots: the slots of the asynchronous engines account results as
 * psync does: a short transfer continues, EINTR repeats the same part, an
 * error or 0 bytes (past the end, with the file's size) completes the op,
 * a sync completes with its status; finished requests come back in the
 * order they finished, and their slots are free again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agent/io_slots.h"

struct my_slot {
    struct io_slot s;
    int engine_part;
};

static void test_io_slots_short_eintr_error_eof(void **state)
{
    struct io_slots q;
    struct io_req a = { .kind = IO_READ, .len = 8192 }, b = { .kind = IO_WRITE, .len = 4096 },
                  c = { .kind = IO_READ, .len = 4096 }, d = { .kind = IO_SYNC };
    struct io_req *out[4];
    char path[] = "/tmp/test_io_slotsXXXXXX";
    int fd = mkstemp(path);
    (void)state;

    assert_true(fd >= 0);
    assert_int_equal(write(fd, "0123456789", 10), 10);
    io_slots_init(&q, 3, sizeof(struct my_slot));
    struct io_slot *sa = io_slots_take(&q, &a), *sb = io_slots_take(&q, &b), *sc = io_slots_take(&q, &c);
    assert_non_null(sa);
    assert_null(io_slots_take(&q, &d));          /* all three in flight */
    /* a: 4096 moved (short), then EINTR (same part), then the rest */
    assert_int_equal(io_slots_account(&q, sa, 4096, fd), 1);
    assert_int_equal(sa->done, 4096);
    assert_int_equal(io_slots_account(&q, sa, -EINTR, fd), 1);
    assert_int_equal(sa->done, 4096);
    /* b fails with ENOSPC; c reads 0 bytes: past the end of a 10-byte file */
    assert_int_equal(io_slots_account(&q, sb, -ENOSPC, fd), 0);
    assert_int_equal(io_slots_account(&q, sc, 0, fd), 0);
    assert_int_equal(io_slots_account(&q, sa, 4096, fd), 0);
    assert_int_equal(q.ndone, 3);
    assert_int_equal(io_slots_hand_back(&q, out, 2), 2);
    assert_ptr_equal(out[0], &b);
    assert_ptr_equal(out[1], &c);
    assert_int_equal(b.result, -ENOSPC);
    assert_int_equal(c.result, -ENODATA);
    assert_int_equal(c.eof_size, 10);
    assert_int_equal(io_slots_hand_back(&q, out, 4), 1);
    assert_ptr_equal(out[0], &a);
    assert_int_equal(a.result, 0);
    /* slots are free again: a sync run here completes at once */
    struct io_slot *sd = io_slots_take(&q, &d);
    assert_non_null(sd);
    assert_int_equal(io_slots_finish_now(&q, sd, fd, 0), 0);   /* the engine issues it */
    assert_int_equal(io_slots_account(&q, sd, -EIO, fd), 0);
    assert_int_equal(d.result, -EIO);
    assert_int_equal(io_slots_hand_back(&q, out, 4), 1);
    sd = io_slots_take(&q, &d);
    assert_int_equal(io_slots_finish_now(&q, sd, fd, 1), 1);
    assert_int_equal(io_slots_hand_back(&q, out, 4), 1);
    assert_int_equal(d.result, 0);
    io_slots_free(&q);
    close(fd);
    unlink(path);
}

static void test_io_slots_empty_and_untake(void **state)
{
    struct io_slots q;
    struct io_req e = { .kind = IO_WRITE, .len = 0 }, w = { .kind = IO_WRITE, .len = 512 };
    struct io_req *out[2];
    (void)state;

    io_slots_init(&q, 1, sizeof(struct my_slot));
    struct io_slot *s = io_slots_take(&q, &e);
    assert_int_equal(io_slots_finish_now(&q, s, -1, 1), 1);   /* nothing to move */
    assert_int_equal(io_slots_hand_back(&q, out, 2), 1);
    assert_int_equal(e.result, 0);
    s = io_slots_take(&q, &w);
    assert_int_equal(io_slots_finish_now(&q, s, -1, 1), 0);
    io_slots_untake(&q, s);                    /* not issued: the slot is free */
    assert_non_null(io_slots_take(&q, &w));
    io_slots_free(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_io_slots_short_eintr_error_eof),
        cmocka_unit_test(test_io_slots_empty_and_untake),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
