/* plan_files: where a job's files are, by name, before any file system is
 * consulted.  Shared by the agent (which then confines the result beneath
 * its --allow roots) and the coordinator's --dry-run.
 *
 * Variables in directory=, filename= and nfs_url=:
 *   ${agent} the agent's index, ${host} its host name, ${job} the thread's
 *   global job number on the agent, ${nagents} the number of agents.
 * Default file names follow fio's $jobname.$jobnum.$filenum with the agent
 * index added so agents sharing a directory never share files by accident:
 *   <name>.<agent>.<thread>.<file>
 * filename_format= (fio's $jobname, $jobnum, $filenum and $clientuid, the
 * last being the agent index as $agent is) replaces
 * that default.
 * filename= is a list, as in fio: names separated by ':' ("a:b" is two
 * files, shared by the job's threads), "\:" standing for a literal colon in
 * a name; nrfiles is then the number of names. */
#ifndef NFSTORM_PLAN_FILES_H
#define NFSTORM_PLAN_FILES_H

#include <stddef.h>
#include <stdint.h>
#include "common/plan.h"

struct plan_vars {
    uint32_t agent;
    uint32_t nagents;
    const char *host;
    uint32_t job;      /* global job number on this agent (${job}) */
};

/* Expand ${...} variables. 0, -ENAMETOOLONG, or -EINVAL naming an unknown one. */
int plan_expand(const char *in, const struct plan_vars *v, char *out, size_t outlen,
                char *err, size_t errlen);

/* Path of file `file` of thread `thread` of job js: absolute when the plan
 * makes it so, else relative to default_dir (the agent's first --allow
 * root, or "" for paths relative to an NFS export).  With js->rotate set,
 * ${agent} and the default name's agent part are those of the agent
 * v->agent reads back from (common/rotate.h).  0 or -errno. */
int plan_file_path(const struct job_spec *js, const struct plan_vars *v, uint32_t thread,
                   uint32_t file, const char *default_dir, char *out, size_t outlen,
                   char *err, size_t errlen);

/* Number of files each thread of js uses. */
uint32_t plan_files_per_thread(const struct job_spec *js);

/* Names in a filename= list (1 for a plain name, 0 for "").  With i <
 * that count, name i unescaped into out: 0, or -ENAMETOOLONG. */
uint32_t plan_filename_count(const char *list);
int plan_filename_at(const char *list, uint32_t i, char *out, size_t outlen);

#endif
