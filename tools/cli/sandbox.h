/* Internal header: not installed. Crash isolation for the subcommands that
 * read result files (show, export, diff, merge, plot): the work runs in a
 * child process with a deadline, a memory limit and an output limit; its
 * stdout and stderr are held back and passed on only when it ends on its
 * own. A child killed by a signal or the deadline becomes one line
 *   scope-likwid: CMD: FILE: damaged (killed by signal 11 while reading)
 * and the command's exit status for bad input (1; diff 2), with nothing
 * else printed (docs/RELIABILITY.md). */
#ifndef SL_SANDBOX_H
#define SL_SANDBOX_H

#include <stddef.h>

typedef int (*sl_sandbox_fn)(int argc, char **argv);

/* Runs fn(argc, argv) (argv[0] is the subcommand's name) in a child and
 * returns its exit status, or damaged_rc after the one-line message.
 * Environment:
 *   SCOPE_LIKWID_READ_TIMEOUT  deadline in seconds (default 60; 0: none),
 *                              which starts again whenever the child
 *                              begins another input (sl_sandbox_reading)
 *   SCOPE_LIKWID_READ_MEMORY   address-space limit in MiB (default
 *                              256 + 16 x the inputs' total size; 0: none)
 *   SCOPE_LIKWID_READ_OUTPUT   output (stdout, output files) limit in MiB
 *                              (default 256 + 64 x the inputs' total size)
 *   SCOPE_LIKWID_SANDBOX=0     run fn in this process (no isolation) */
int sl_sandbox_run(sl_sandbox_fn fn, int argc, char **argv, int damaged_rc);

/* Called by the child before it opens an input: the file a crash is
 * reported against, and a new deadline. No effect outside a sandbox. */
void sl_sandbox_reading(const char *path);

/* A file descriptor to the terminal the command's stderr was, for a
 * progress line the held-back stderr would only show at the end; -1 when
 * stderr is not a terminal. */
int sl_sandbox_terminal(void);

/* The child's address-space limit in bytes, 0 when none (for the message
 * on a failed allocation). */
size_t sl_sandbox_mem_limit(void);

#endif
