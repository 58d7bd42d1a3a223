/* plan_fio_keys: every key fio 3.33 has, and what nfstorm does with it.
 *
 * One line per fio option name (options.c's table, its aliases, and the
 * engines' own options): implemented (a plan key of plan_keys.c), an alias
 * of another entry, accepted because nfstorm already behaves so, ignored
 * with a warning (it cannot matter for a file-system load; the reason is
 * printed), or refused with a reason.  "Not yet" is a refusal whose reason
 * says the key is planned.  The parser (plan_parse.c) consults it for
 * every key that is not a plan key, and `nfstorm run --fio-compat-report`
 * prints it for the keys a plan sets.  A key that plan_keys.c implements
 * is implemented whatever its entry here says. */
#ifndef NFSTORM_PLAN_FIO_KEYS_H
#define NFSTORM_PLAN_FIO_KEYS_H

enum fio_key_status {
    FIO_KEY_IMPLEMENTED = 0, /* a plan key of the same name */
    FIO_KEY_ALIAS,           /* another spelling of `target` */
    FIO_KEY_SAME,            /* accepted, no effect: nfstorm already behaves so */
    FIO_KEY_IGNORED,         /* accepted with a warning naming `note` */
    FIO_KEY_REFUSED,         /* the plan is refused; `note` says why */
};

struct fio_key {
    const char *name;
    enum fio_key_status status;
    const char *note;        /* ALIAS: the target key; else a short reason or NULL */
};

/* The entry for a fio key, or NULL when fio has no such key (nfstorm's own
 * keys, agents= and the like, have no entry).  Static storage. */
const struct fio_key *plan_fio_key_find(const char *name);

/* The entry that decides what a key does: aliases followed to their target
 * (at most a few steps; the table has no cycles).  NULL as above. */
const struct fio_key *plan_fio_key_resolve(const char *name);

/* The target of an alias, or NULL when name is not an alias. */
const char *plan_fio_key_alias(const char *name);

/* "implemented", "alias", "accepted", "ignored", "refused". */
const char *plan_fio_key_status_name(enum fio_key_status s);

/* The table, for tests: *n gets its length. */
const struct fio_key *plan_fio_keys(unsigned *n);

#endif
