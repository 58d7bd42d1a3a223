/* log: timestamped one-line messages on stderr for the daemons.
 * The level is process-wide (set once in main) because log lines come from
 * every module; it is the one piece of mutable state shared that way. */
#ifndef NFSTORM_LOG_H
#define NFSTORM_LOG_H

enum log_level { LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

void log_set_level(enum log_level l);
void log_msg(enum log_level l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
