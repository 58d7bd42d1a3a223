/* test_spawn: the ssh command line (options in order, the remote command
 * quoted so a POSIX shell gives the agent exactly its arguments), and the
 * children's life: a child that fails is named with its last line, a
 * running one is stopped, and nothing is left running.  The "ssh" of the
 * process tests is a shell script standing in for it (tests/integration
 * t1020 runs the real one against a real sshd). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/plan.h"
#include "common/plan_parse.h"
#include "coordinator/fleet/spawn.h"

static void test_spawn_shell_quote_quotes(void **state)
{
    char buf[64];
    size_t len = 0;
    (void)state;
    assert_int_equal(spawn_shell_quote("a b'c$d", buf, sizeof buf, &len), 0);
    assert_string_equal(buf, "'a b'\\''c$d'");
    assert_int_equal(len, strlen(buf));
    len = 0;
    assert_int_equal(spawn_shell_quote("0123456789", buf, 8, &len), -ENOSPC);
}

/* Run the remote command through sh with a fake SSH_CONNECTION and an
 * "agent" that prints its arguments one per line. */
static void run_remote(const char *cmd, const char *conn, char *out, size_t len)
{
    char path[] = "/tmp/test_spawn_cmd.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fprintf(fp, "%s\n", cmd);
    fclose(fp);
    char line[512];
    snprintf(line, sizeof line, "SSH_CONNECTION='%s' sh %s", conn, path);
    FILE *p = popen(line, "r");
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    pclose(p);
    unlink(path);
}

static void test_spawn_ssh_argv_order_and_command(void **state)
{
    struct spawn_options o = { 0 };
    const char *argv[64];
    char *cmd = NULL, err[256], out[2048];
    (void)state;
    o.ssh_config = "/t/cfg";
    o.ssh_opts[o.nssh_opts++] = "Port=2222";
    o.ssh_opts[o.nssh_opts++] = "User=bob";
    o.agent_path = "printf %s\\n";      /* quoted as one word: see below */
    o.remote_secret = "/etc/nfstorm/it's secret";
    o.port = 7879;
    o.allow[o.nallow++] = "/mnt/efs/a b";
    o.allow_nfs[o.nallow_nfs++] = "nfs://srv/export";
    int n = spawn_ssh_argv(&o, "h1", "zone-a,big", argv, 64, &cmd, err, sizeof err);
    assert_true(n > 0);
    assert_null(argv[n]);
    assert_string_equal(argv[0], "ssh");
    assert_string_equal(argv[1], "-F");
    assert_string_equal(argv[2], "/t/cfg");
    assert_string_equal(argv[3], "-o");
    assert_string_equal(argv[4], "Port=2222");
    assert_string_equal(argv[6], "User=bob");
    assert_string_equal(argv[8], "BatchMode=yes");
    assert_string_equal(argv[n - 4], "-tt");
    assert_string_equal(argv[n - 3], "--");
    assert_string_equal(argv[n - 2], "h1");
    assert_ptr_equal(argv[n - 1], cmd);
    /* the command through a real shell: replace the quoted agent path by
     * printf so the arguments come back one per line */
    char *p = strstr(cmd, "'printf %s\\n'");
    assert_non_null(p);
    memcpy(p, "printf '%s\\n'", strlen("printf '%s\\n'"));
    run_remote(cmd, "10.1.2.3 50000 10.9.9.9 22", out, sizeof out);
    assert_string_equal(out, "--coordinator\n10.1.2.3:7879\n--secret-file\n/etc/nfstorm/it's secret\n"
                             "--allow\n/mnt/efs/a b\n--allow-nfs\nnfs://srv/export\n--label\nzone-a,big\n");
    /* IPv6: in brackets */
    run_remote(cmd, "fd00::5 50000 fd00::1 22", out, sizeof out);
    assert_non_null(strstr(out, "--coordinator\n[fd00::5]:7879\n"));
    free(cmd);

    /* an explicit address; no secret: --insecure; no labels */
    o.address = "coord.example";
    o.remote_secret = NULL;
    o.nallow_nfs = 0;
    n = spawn_ssh_argv(&o, "h2", NULL, argv, 64, &cmd, err, sizeof err);
    assert_true(n > 0);
    p = strstr(cmd, "'printf %s\\n'");
    memcpy(p, "printf '%s\\n'", strlen("printf '%s\\n'"));
    run_remote(cmd, "", out, sizeof out);
    assert_string_equal(out, "--coordinator\ncoord.example:7879\n--insecure\n--allow\n/mnt/efs/a b\n");
    free(cmd);
}

static void test_spawn_ssh_argv_refuses(void **state)
{
    struct spawn_options o = { 0 };
    const char *argv[64];
    char *cmd = NULL, err[256];
    (void)state;
    o.allow[o.nallow++] = "/d";
    assert_int_equal(spawn_ssh_argv(&o, "-oProxyCommand=x", NULL, argv, 64, &cmd, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "not an ssh destination"));
    assert_int_equal(spawn_ssh_argv(&o, "h1", "a\nb", argv, 64, &cmd, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "line break"));
    assert_int_equal(spawn_ssh_argv(&o, "h1", NULL, argv, 8, &cmd, err, sizeof err), -ENOSPC);
    assert_null(cmd);
}

static char *fake_ssh(const char *body)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/test_spawn_ssh.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fprintf(fp, "#!/bin/sh\n%s\n", body);
    fclose(fp);
    chmod(path, 0700);
    return path;
}

static int alive(pid_t pid)
{
    return kill(pid, 0) == 0;
}

static void test_spawn_fleet_names_failed_host(void **state)
{
    struct spawn_options o = { 0 };
    struct spawn_fleet f;
    char err[1024];
    char *hosts[] = { "good", "bad" };
    char *labels[] = { NULL, "x" };
    char *ssh = fake_ssh("for a; do h=$last; last=$a; done\n"
                         "case $h in bad) echo 'ssh: connect to host bad port 22: Connection refused' >&2;"
                         " exit 255;; esac\nexec sleep 30");
    (void)state;
    o.ssh = ssh;
    o.allow[o.nallow++] = "/d";
    o.port = 1;
    assert_int_equal(spawn_fleet_start(&f, &o, hosts, labels, 2, err, sizeof err), 0);
    pid_t good = f.child[0].pid;
    int n = 0;
    for (int i = 0; i < 300 && (n = spawn_fleet_check(&f, err, sizeof err)) == 0; i++) {
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
    }
    assert_int_equal(n, 1);
    assert_string_equal(err, "host bad: ssh exited with status 255: "
                             "ssh: connect to host bad port 22: Connection refused");
    assert_true(alive(good));
    spawn_fleet_stop(&f, 2000);
    assert_false(alive(good));       /* reaped: the pid is gone */
    assert_int_equal(f.n, 0);
    unlink(ssh);
}

static void test_spawn_fleet_stop_kills_stubborn(void **state)
{
    struct spawn_options o = { 0 };
    struct spawn_fleet f;
    char err[256];
    char *hosts[] = { "h1" };
    char *ssh = fake_ssh("trap '' TERM\necho started\nwhile :; do sleep 0.05; done");
    (void)state;
    o.ssh = ssh;
    o.allow[o.nallow++] = "/d";
    o.port = 1;
    assert_int_equal(spawn_fleet_start(&f, &o, hosts, NULL, 1, err, sizeof err), 0);
    pid_t pid = f.child[0].pid;
    char line[64] = "";
    for (int i = 0; i < 300 && !line[0]; i++) {
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
        spawn_child_last_line(&f.child[0], line, sizeof line);
    }
    assert_string_equal(line, "started");
    assert_int_equal(spawn_fleet_check(&f, err, sizeof err), 0);
    spawn_fleet_stop(&f, 200);       /* ignores SIGTERM: SIGKILL after 200 ms */
    assert_false(alive(pid));
    unlink(ssh);
}

static void test_spawn_fleet_log_capped(void **state)
{
    struct spawn_options o = { 0 };
    struct spawn_fleet f;
    char err[256], line[64] = "";
    char *hosts[] = { "h1" };
    char *ssh = fake_ssh("head -c 1200000 /dev/zero | tr '\\0' x; echo; echo last; exec sleep 30");
    struct stat st;
    (void)state;
    o.ssh = ssh;
    o.allow[o.nallow++] = "/d";
    o.port = 1;
    assert_int_equal(spawn_fleet_start(&f, &o, hosts, NULL, 1, err, sizeof err), 0);
    for (int i = 0; i < 500 && strcmp(line, "last") != 0; i++) {
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
        spawn_child_last_line(&f.child[0], line, sizeof line);
    }
    assert_string_equal(line, "last");
    assert_int_equal(fstat(f.child[0].log_fd, &st), 0);
    assert_true(st.st_size > 1200000);
    assert_int_equal(spawn_fleet_check(&f, err, sizeof err), 0);
    assert_int_equal(fstat(f.child[0].log_fd, &st), 0);
    assert_int_equal(st.st_size, 0);        /* started again */
    spawn_fleet_stop(&f, 2000);
    unlink(ssh);
}

static void test_spawn_fleet_needs_allow(void **state)
{
    struct spawn_options o = { 0 };
    struct spawn_fleet f;
    char err[256];
    char *hosts[] = { "h1" };
    (void)state;
    assert_int_equal(spawn_fleet_start(&f, &o, hosts, NULL, 1, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "--remote-allow"));
    spawn_fleet_stop(&f, 0);
}

static void test_spawn_plan_allow_fixed_dirs(void **state)
{
    struct plan plan;
    char err[256], *dirs[8];
    (void)state;
    plan_init(&plan);
    int prc = plan_parse_string("p.fio", "[a]\nrw=write\nsize=4k\ndirectory=/mnt/efs/run/${agent}\n"
                                       "[b]\nrw=read\nsize=8k\nfilename=/data/x/f1:/data/y/f2\n"
                                       "[c]\nrw=read\nsize=4k\ndirectory=/mnt/efs/run/${agent}\n"
                                       "[d]\nrw=read\nsize=4k\nfilename=rel/f\n",
                                       &plan, err, sizeof err);
    if (prc)
        print_error("%s\n", err);
    assert_int_equal(prc, 0);
    (void)err;
    uint32_t n = spawn_plan_allow(&plan, dirs, 8);
    assert_int_equal(n, 3);
    assert_string_equal(dirs[0], "/mnt/efs/run");
    assert_string_equal(dirs[1], "/data/x");
    assert_string_equal(dirs[2], "/data/y");
    for (uint32_t i = 0; i < n; i++)
        free(dirs[i]);
    assert_int_equal(spawn_plan_allow(&plan, dirs, 1), 1);
    free(dirs[0]);
    plan_free(&plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spawn_shell_quote_quotes),
        cmocka_unit_test(test_spawn_ssh_argv_order_and_command),
        cmocka_unit_test(test_spawn_ssh_argv_refuses),
        cmocka_unit_test(test_spawn_fleet_names_failed_host),
        cmocka_unit_test(test_spawn_fleet_stop_kills_stubborn),
        cmocka_unit_test(test_spawn_fleet_log_capped),
        cmocka_unit_test(test_spawn_fleet_needs_allow),
        cmocka_unit_test(test_spawn_plan_allow_fixed_dirs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
