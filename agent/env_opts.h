/* env_opts: command-line options from environment variables.
 *
 * Containers and batch systems configure a daemon through its
 * environment (a Kubernetes pod spec, a systemd EnvironmentFile, an
 * sbatch script), so every long option --foo-bar may come from the
 * variable PREFIX + FOO_BAR instead.  The variables become arguments
 * placed before the real ones, so getopt parses both the same way and
 * every check applies to both.  Rules:
 *   - an option given on the command line wins: its variable is ignored;
 *   - options listed as repeatable take a comma-separated list (one
 *     argument per non-empty item);
 *   - a switch (no argument) is on for 1/true/yes/on, off for
 *     0/false/no/off or empty; anything else is an error;
 *   - an empty value for an option with an argument means unset;
 *   - "help" and "version" have no variable. */
#ifndef NFSTORM_ENV_OPTS_H
#define NFSTORM_ENV_OPTS_H

#include <getopt.h>
#include <stddef.h>

struct env_argv {
    int argc;
    char **argv;            /* argv[0], the variables' arguments, the real ones; NULL-terminated */
    char **owned;           /* the strings made here (freed by env_opts_free) */
    int nowned;
};

/* 1 for the long options that take a comma-separated list (--allow, --allow-nfs, --label). */
int env_opts_repeatable(const char *name);

/* Build e from the environment and argc/argv.  0, or -EINVAL with a
 * one-line reason naming the variable in err (e is then empty: nothing to
 * free, but env_opts_free is harmless). */
int env_opts_build(struct env_argv *e, const struct option *opts, const char *prefix, int argc,
                   char **argv, char *err, size_t errlen);
void env_opts_free(struct env_argv *e);

#endif
