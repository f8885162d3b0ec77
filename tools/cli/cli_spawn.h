/* Internal to tools/cli: a program started with its output read back. */
#ifndef SL_CLI_SPAWN_H
#define SL_CLI_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Starts exe (path_search: looked up in PATH as posix_spawnp does) with
 * argv, stdin /dev/null and stdout and stderr into one pipe, in a process
 * group of its own when own_group. *pid gets the child, *out the pipe's
 * read end (close-on-exec). 0, or -errno when it could not be started. */
int sl_spawn_piped(const char *exe, int path_search, char *const argv[], int own_group,
                   pid_t *pid, int *out);

/* One read of fd, kept in buf up to cap bytes (*n: how many so far);
 * beyond cap, or without a buf, what comes is read and dropped, so the
 * writer never blocks. 1: more may come (also after EINTR), 0: end of file
 * or an error. */
int sl_read_kept(int fd, char *buf, size_t cap, size_t *n);

/* CLOCK_MONOTONIC in milliseconds: deadlines. */
int64_t sl_now_ms(void);

#endif
