/* cli_opt: the CLI's one option reader (cmd_opt_value) and the option
 * table it drives: run, serve, report, compare and fio's options each
 * list their plain-valued options as rows, and cli_opt_take reads a word
 * against the rows and checks the value, every command saying a bad
 * value the same way. */
#ifndef NFSTORM_CLI_OPT_H
#define NFSTORM_CLI_OPT_H

#include <stddef.h>
#include <stdint.h>

/* An option with a value, "--opt VALUE" or "--opt=VALUE", at argv[*i]:
 * the value (advancing *i past a separate one), or NULL if argv[*i] is not
 * this option, or NULL with *bad set (and a one-line error printed) when
 * the value is missing. */
const char *cmd_opt_value(const char *name, int argc, char **argv, int *i, int *bad);

/* What a row's field in the caller's struct is: a string (equal to want
 * when want is set; CO_WORD: not empty either), a non-empty string
 * appended to a list (the count at n_off, at most max), a flag set to 1,
 * a duration in ns or a count in [min, max]. */
enum cli_opt_kind { CO_STR, CO_WORD, CO_LIST, CO_FLAG, CO_DUR, CO_COUNT };

struct cli_opt {
    const char *name;
    enum cli_opt_kind kind;
    size_t off;                   /* const char *, const char *[], int, uint64_t ns or uint32_t */
    uint64_t min, max;
    const char *want;             /* a bad value's "(want WANT)"; a count's default: "MIN..MAX" */
    size_t n_off;                 /* CO_LIST: its uint32_t count */
};

/* argv[*i] as one of t[0..n) into the struct at base: 1 taken, 0 not one
 * of them, 2 bad (said: "nfstorm: " cmd "--opt: bad value ..."). */
int cli_opt_take(const struct cli_opt *t, size_t n, void *base, const char *cmd, int argc, char **argv, int *i);

#endif
