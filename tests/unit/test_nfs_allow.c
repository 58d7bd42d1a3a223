/* test_nfs_allow: --allow-nfs rules cover the whole NFS URL: server,
 * export, path, and every parameter (identity ones only as the rule
 * carries them, tuning ones free, unknown ones refused by name). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "agent/nfs_allow.h"

static struct allow_list rules(const char *a, const char *b)
{
    struct allow_list l;
    memset(&l, 0, sizeof l);
    l.root[l.n++] = (char *)a;
    if (b)
        l.root[l.n++] = (char *)b;
    return l;
}

static void expect(const struct allow_list *l, const char *url, int rc, const char *text)
{
    char err[512] = "";
    assert_int_equal(nfs_allow_check(l, url, err, sizeof err), rc);
    if (text)
        assert_non_null(strstr(err, text));
}

static void test_nfs_allow_export_and_path(void **state)
{
    struct allow_list l = rules("nfs://srv/export", NULL);
    (void)state;
    expect(&l, "nfs://srv/export", 0, NULL);
    expect(&l, "nfs://srv/export/sub/dir", 0, NULL);
    expect(&l, "nfs://srv/export?version=4&nfsport=2049&mountport=20048", 0, NULL);
    expect(&l, "nfs://srv/export2", -EACCES, "outside the allowed NFS exports");
    expect(&l, "nfs://other/export", -EACCES, "outside the allowed NFS exports");
    expect(&l, "nfs://srv/export/../etc", -EACCES, "'..' in the NFS path");
    expect(&l, "nfs://srv/export/..", -EACCES, "'..' in the NFS path");
    expect(&l, "nfs://srv/export/..x", 0, NULL);
}

static void test_nfs_allow_identity_parameters(void **state)
{
    struct allow_list l = rules("nfs://srv/export?uid=1000", "nfs://srv/open");
    (void)state;
    expect(&l, "nfs://srv/export?uid=1000", 0, NULL);
    expect(&l, "nfs://srv/export/d?nfsport=1&uid=1000", 0, NULL);
    expect(&l, "nfs://srv/export?uid=0", -EACCES, "allows only uid=1000");
    expect(&l, "nfs://srv/export?uid=1000&gid=0", -EACCES, "parameter gid=0 changes the identity");
    expect(&l, "nfs://srv/open?uid=0&gid=0", -EACCES, "parameter uid=0 changes the identity");
    expect(&l, "nfs://srv/open?sec=sys", -EACCES, "parameter sec=sys");
    expect(&l, "nfs://srv/open?auxgids=0,1", -EACCES, "auxgids");
    expect(&l, "nfs://srv/open?readahead=1048576", 0, NULL);
}

static void test_nfs_allow_unknown_and_malformed(void **state)
{
    struct allow_list l = rules("nfs://srv/export", NULL);
    char err[256];
    (void)state;
    expect(&l, "nfs://srv/export?frob=1", -EACCES, "unknown NFS URL parameter 'frob'");
    expect(&l, "nfs://srv/export?uid", -EACCES, "parameter 'uid' has no value");
    expect(&l, "nfs://srv/export?nfsport=1&nfsport=2", -EACCES, "'nfsport' given twice");
    expect(&l, "nfs://srv/export?version=3?uid=0", -EACCES, "'?' inside the parameters");
    expect(&l, "nfs://srv/export?version=3#uid=0", -EACCES, "'#' inside the parameters");
    expect(&l, "nfs://srv/export?version=3;uid=0", -EACCES, "value '3;uid=0' is not a plain word");
    expect(&l, "nfs://srv/export?version=3%26uid%3D0", -EACCES, "'%' escape in an NFS URL is refused");
    expect(&l, "nfs://srv/export/%2e%2e/etc", -EACCES, "'%' escape in an NFS URL is refused");
    expect(&l, "nfs://srv/export/f%3Fuid%3D0", -EACCES, "'%' escape in an NFS URL is refused");
    expect(&l, "nfs://srv/export?version=4.1&if=eth0:1", -EACCES, "parameter if=eth0:1 changes");
    expect(&l, "http://srv/export", -EACCES, "is not nfs://SERVER/EXPORT");
    expect(&l, "nfs:///export", -EACCES, "is not nfs://SERVER/EXPORT");
    assert_int_equal(nfs_allow_rule_check("nfs://srv/x?uid=1000&version=3", err, sizeof err), 0);
    assert_int_equal(nfs_allow_rule_check("nfs://srv/x?bogus=1", err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "unknown NFS URL parameter 'bogus'"));
    assert_int_equal(nfs_allow_rule_check("srv/x", err, sizeof err), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nfs_allow_export_and_path),
        cmocka_unit_test(test_nfs_allow_identity_parameters),
        cmocka_unit_test(test_nfs_allow_unknown_and_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
