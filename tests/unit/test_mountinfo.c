/* test_mountinfo: the /proc/self/mountinfo parser (agent/mountinfo.c) and
 * the machine parsers of agent/hostinfo.c, on fixture text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent/hostinfo.h"
#include "agent/mountinfo.h"
#include "agent/procfs.h"

static const char fixture[] =
    "22 1 252:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
    "25 22 0:22 / /tmp rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=8G,inode64\n"
    "31 22 0:40 / /mnt/efs rw,relatime shared:12 - nfs4 fs-1.efs.example:/ "
    "rw,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,nconnect=16,timeo=600,"
    "retrans=2,sec=sys,clientaddr=10.0.0.5,local_lock=none,addr=10.0.0.9\n"
    "32 22 0:41 / /mnt/efs2 rw,relatime - nfs 10.0.0.1:/export rw,nfsvers=3,rsize=65536,wsize=32768,soft,timeo=14\n"
    "40 25 0:50 / /tmp/my\\040dir rw,relatime - ext4 /dev/sdb1 rw\n"
    "not a mountinfo line at all\n"
    "41 22 0:51 / /mnt/efsx rw - tmpfs none rw\n";

static void test_mountinfo_nfs_mount_fields(void **state)
{
    struct storage_info s;
    (void)state;
    assert_int_equal(mountinfo_find(fixture, "/mnt/efs/run/f.0", &s), 0);
    assert_int_equal(s.kind, STORAGE_MOUNT);
    assert_string_equal(s.where, "/mnt/efs");
    assert_string_equal(s.source, "fs-1.efs.example:/");
    assert_string_equal(s.fstype, "nfs4");
    assert_string_equal(s.nfsvers, "4.1");
    assert_int_equal(s.rsize, 1048576);
    assert_int_equal(s.wsize, 1048576);
    assert_int_equal(s.nconnect, 16);
    assert_int_equal(s.timeo, 600);
    assert_string_equal(s.mode, "hard");
    assert_non_null(strstr(s.options, "rw,relatime,rw,vers=4.1"));   /* mount, then super options */
}

static void test_mountinfo_nfsvers_and_soft(void **state)
{
    struct storage_info s;
    (void)state;
    assert_int_equal(mountinfo_find(fixture, "/mnt/efs2", &s), 0);
    assert_string_equal(s.fstype, "nfs");
    assert_string_equal(s.nfsvers, "3");
    assert_int_equal(s.rsize, 65536);
    assert_int_equal(s.wsize, 32768);
    assert_string_equal(s.mode, "soft");
    assert_int_equal(s.timeo, 14);
    assert_int_equal(s.nconnect, 0);
}

/* /mnt/efsx is not beneath /mnt/efs: components, not characters. */
static void test_mountinfo_longest_prefix_on_components(void **state)
{
    struct storage_info s;
    (void)state;
    assert_int_equal(mountinfo_find(fixture, "/mnt/efsx/a", &s), 0);
    assert_string_equal(s.where, "/mnt/efsx");
    assert_string_equal(s.fstype, "tmpfs");
    assert_int_equal(mountinfo_find(fixture, "/tmp/x/y", &s), 0);
    assert_string_equal(s.where, "/tmp");
    assert_string_equal(s.fstype, "tmpfs");
    assert_string_equal(s.source, "tmpfs");
    assert_string_equal(s.nfsvers, "");         /* not NFS: no NFS fields */
    assert_int_equal(mountinfo_find(fixture, "/home/u", &s), 0);
    assert_string_equal(s.where, "/");
    assert_string_equal(s.fstype, "ext4");
    assert_string_equal(s.source, "/dev/vda1");
}

static void test_mountinfo_escaped_space(void **state)
{
    struct storage_info s;
    (void)state;
    assert_int_equal(mountinfo_find(fixture, "/tmp/my dir/f", &s), 0);
    assert_string_equal(s.where, "/tmp/my dir");
    assert_string_equal(s.source, "/dev/sdb1");
    /* the escaped name is not a prefix of a different directory */
    assert_int_equal(mountinfo_find(fixture, "/tmp/my", &s), 0);
    assert_string_equal(s.where, "/tmp");
}

/* A later mount on the same point hides the earlier one. */
static void test_mountinfo_stacked_mount_wins(void **state)
{
    static const char stacked[] =
        "1 0 0:1 / / rw - ext4 /dev/a rw\n"
        "2 1 0:2 / /data rw - ext4 /dev/b rw\n"
        "3 1 0:3 / /data rw - xfs /dev/c rw\n";
    struct storage_info s;
    (void)state;
    assert_int_equal(mountinfo_find(stacked, "/data/x", &s), 0);
    assert_string_equal(s.fstype, "xfs");
    assert_string_equal(s.source, "/dev/c");
}

static void test_mountinfo_nothing_holds(void **state)
{
    struct storage_info s;
    (void)state;
    assert_int_equal(mountinfo_find("garbage\n1 2 3\n", "/x", &s), -ENOENT);
    assert_int_equal(mountinfo_find("", "/x", &s), -ENOENT);
    assert_int_equal(mountinfo_find("2 1 0:2 / /data rw - ext4 /dev/b rw\n", "/other", &s), -ENOENT);
    /* a "-" among the first six fields is not the separator */
    assert_int_equal(mountinfo_find("1 0 0:1 / / - ext4 /dev/a rw\n", "/x", &s), -ENOENT);
}

/* This machine: the root is mounted, and its fields are filled. */
static void test_mountinfo_lookup_real(void **state)
{
    struct storage_info s;
    (void)state;
    assert_int_equal(mountinfo_lookup("/", &s), 0);
    assert_string_equal(s.where, "/");
    assert_true(s.fstype[0] != '\0');
}

static void test_hostinfo_cpu_model(void **state)
{
    char m[128];
    (void)state;
    hostinfo_parse_cpu_model("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\n"
                             "model name\t: Intel(R) Xeon(R)   Platinum 8259CL CPU @ 2.50GHz\n"
                             "processor\t: 1\nmodel name\t: other\n", m, sizeof m);
    assert_string_equal(m, "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz");
    hostinfo_parse_cpu_model("processor\t: 0\nBogoMIPS\t: 243.75\nModel\t\t: Raspberry Pi 4 Model B\n", m,
                             sizeof m);
    assert_string_equal(m, "Raspberry Pi 4 Model B");
    hostinfo_parse_cpu_model("processor : 0\n", m, sizeof m);
    assert_string_equal(m, "");
    hostinfo_parse_cpu_model("model name: abcdefghij\n", m, 5);      /* cut, terminated */
    assert_string_equal(m, "abcd");
}

static void test_hostinfo_memtotal(void **state)
{
    uint64_t b = 1;
    (void)state;
    assert_int_equal(hostinfo_parse_memtotal("MemTotal:        8131552 kB\nMemFree: 1 kB\n", &b), 0);
    assert_int_equal(b, 8131552ull * 1024);
    assert_int_equal(hostinfo_parse_memtotal("MemFree:  1 kB\n", &b), -EINVAL);
    assert_int_equal(b, 0);
    assert_int_equal(hostinfo_parse_memtotal("MemTotal: lots kB\n", &b), -EINVAL);
    assert_int_equal(hostinfo_parse_memtotal("MemTotal: 12 MB\n", &b), -EINVAL);
    assert_int_equal(hostinfo_parse_memtotal("MemTotal: 99999999999999999999 kB\n", &b), -EINVAL);
}

static void test_hostinfo_read_this_machine(void **state)
{
    struct hostinfo h;
    struct utsname u;
    (void)state;
    hostinfo_read(&h);
    assert_int_equal(uname(&u), 0);
    assert_string_equal(h.kernel, u.release);
    assert_true(h.mem_bytes > (64ull << 20));
    assert_true(h.mem_bytes % 1024 == 0);
}

/* procfs_read: a file past its first buffer is read whole up to max, and
 * cut at max; a missing one is NULL. */
static void test_procfs_read_grows_to_max(void **state)
{
    char path[] = "/tmp/test_procfs.XXXXXX";
    int fd = mkstemp(path);
    size_t len = 200000;
    char *data = malloc(len), *t;
    (void)state;

    assert_true(fd >= 0 && data);
    for (size_t i = 0; i < len; i++)
        data[i] = (char)('a' + i % 26);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
    t = procfs_read(path, 4u << 20);
    assert_non_null(t);
    assert_int_equal(strlen(t), len);
    assert_memory_equal(t, data, len);
    free(t);
    t = procfs_read(path, 131072);
    assert_int_equal(strlen(t), 131072);
    assert_memory_equal(t, data, 131072);
    free(t);
    t = procfs_read(path, 10);
    assert_string_equal(t, "abcdefghij");
    free(t);
    unlink(path);
    assert_null(procfs_read(path, 10));
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_procfs_read_grows_to_max),
        cmocka_unit_test(test_mountinfo_nfs_mount_fields),
        cmocka_unit_test(test_mountinfo_nfsvers_and_soft),
        cmocka_unit_test(test_mountinfo_longest_prefix_on_components),
        cmocka_unit_test(test_mountinfo_escaped_space),
        cmocka_unit_test(test_mountinfo_stacked_mount_wins),
        cmocka_unit_test(test_mountinfo_nothing_holds),
        cmocka_unit_test(test_mountinfo_lookup_real),
        cmocka_unit_test(test_hostinfo_cpu_model),
        cmocka_unit_test(test_hostinfo_memtotal),
        cmocka_unit_test(test_hostinfo_read_this_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
