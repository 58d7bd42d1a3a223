/* engine_table: every I/O engine described once.
 *
 * Before this table an engine's identity was spread over the plan parser
 * (known names, aliases), the agent's phase setup, admission, clean, the
 * coordinator's --local, spawn, clean estimate and dry-run, each comparing
 * the engine's name with "nfs" or "null".  Now each of them asks the row:
 * does the engine take a URL or a local path, does it keep files, which
 * --allow rule confines it, does it have a page cache, metadata ops.  As
 * curl describes each protocol in one Curl_handler the core consults.
 *
 * ENGINE_TABLE(X) is the list itself, one X(...) row per engine:
 *
 *   X(name, aliases, target, flags, ops)
 *
 *   name     the name a job carries (job_spec.ioengine, on the wire)
 *   aliases  fio's other spellings that run the same engine, space
 *            separated ("" if none); folded to name by the parser
 *   target   where the engine's files live (enum engine_target)
 *   flags    ENGINE_F_* properties
 *   ops      the agent's struct engine_ops for it (agent/engine.h); only
 *            the agent expands this column (agent/engine.c), so common/
 *            and the coordinator never see an agent symbol
 *
 * Adding an engine is one new file (agent/engine_<name>.c defining its
 * ops) plus one row here (docs/architecture.md, "Adding an engine").
 *
 * Spellings the parser knows without a row of their own: fio's metadata
 * engines (filecreate, filestat, filedelete), which become rw=metadata jobs
 * of a file engine (engine_table_fold_md), and fio engines nfstorm refuses
 * with the name of its closest engine (windowsaio, mmap).
 *
 * Everything here is constant; any thread may call any function. */
#ifndef NFSTORM_ENGINE_TABLE_H
#define NFSTORM_ENGINE_TABLE_H

#include <stddef.h>
#include "common/plan.h"

enum engine_target {
    ENGINE_PATH,   /* files on a kernel mount, beneath the agent's --allow roots */
    ENGINE_URL,    /* files behind nfs_url=, checked against --allow-nfs */
    ENGINE_NONE    /* no files at all: paths are named (under --allow) but never touched */
};

#define ENGINE_F_CACHE   0x1u  /* the kernel's page cache is in the way: invalidate= matters */
#define ENGINE_F_DIRECT  0x2u  /* direct=1 means O_DIRECT (alignment checked at setup) */
#define ENGINE_F_MD      0x4u  /* rw=metadata works (create, stat, ... ops) */
#define ENGINE_F_DEPTH   0x8u  /* iodepth > 1 keeps that many ops in flight */

#define ENGINE_FILE_FLAGS (ENGINE_F_CACHE | ENGINE_F_DIRECT | ENGINE_F_MD)

#define ENGINE_TABLE(X)                                                                      \
    X("psync",    "sync pvsync vsync pvsync2", ENGINE_PATH, ENGINE_FILE_FLAGS, engine_psync)  \
    X("io_uring", "",        ENGINE_PATH, ENGINE_FILE_FLAGS | ENGINE_F_DEPTH, engine_uring)  \
    X("libaio",   "",        ENGINE_PATH, ENGINE_FILE_FLAGS | ENGINE_F_DEPTH, engine_libaio) \
    X("posixaio", "",        ENGINE_PATH, ENGINE_FILE_FLAGS | ENGINE_F_DEPTH, engine_posixaio) \
    X("nfs",      "",        ENGINE_URL,  ENGINE_F_MD | ENGINE_F_DEPTH, engine_nfs)          \
    X("null",     "",        ENGINE_NONE, ENGINE_F_MD | ENGINE_F_DEPTH, engine_null)

struct engine_desc {
    const char *name;
    const char *aliases;
    enum engine_target target;
    unsigned flags;
};

/* The row of an engine by the name a job carries (no aliases); NULL if
 * there is none. */
const struct engine_desc *engine_table_find(const char *name);

/* Parse an ioengine= value: its row's name (an alias folded) or one of
 * fio's metadata engines (stored as given, see engine_table_fold_md) into
 * out (cap bytes).  0, or -EINVAL with the reason in why ("windowsaio is not
 * implemented; use libaio or io_uring", or the list of engines). */
int engine_table_parse(const char *value, char *out, size_t cap, char *why, size_t whylen);

/* If j->ioengine is fio's filecreate, filestat or filedelete, turn the job
 * into nfstorm's metadata job doing the same: rw=metadata with md_ops
 * create / create,stat / create,unlink, on nfs when nfs_url is set, else
 * psync; filecreate makes empty files, as fio's does.  Returns 1 if it
 * folded the job, 0 if ioengine was no metadata engine, -EINVAL if the job
 * also names md_ops itself (the engine is its md_ops; left unchanged). */
int engine_table_fold_md(struct job_spec *j);

/* Shorthands for the questions the core asks; an unknown name (refused
 * long before) answers as a path engine would. */
int engine_table_takes_url(const char *name);   /* target is ENGINE_URL */
int engine_table_local(const char *name);       /* target is ENGINE_PATH */
int engine_table_has_files(const char *name);   /* target is not ENGINE_NONE */
/* The agent flag that confines the engine's files: "--allow" or "--allow-nfs". */
const char *engine_table_allow_flag(const char *name);

/* "psync (sync, pvsync, ...), io_uring, libaio, posixaio, nfs, null", for messages. */
const char *engine_table_names(char *buf, size_t len);
/* The URL engines' names ("nfs"), for messages. */
const char *engine_table_url_names(char *buf, size_t len);

#endif
