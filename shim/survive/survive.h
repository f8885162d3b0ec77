/* Internal header: not installed. What outlives a process that never
 * reaches Close (docs/SHIM.md, "When the process is killed"): the journal,
 * created at Init, and handlers for the terminating signals the application
 * left at their default, which mark the journal, have the writer turn it
 * into the result file, and die of the same signal. */
#ifndef SL_SHIM_SURVIVE_H
#define SL_SHIM_SURVIVE_H

#include <stdint.h>
#include <sys/types.h>

/* At Init, before the mode becomes ACTIVE (parent_pid 0), and in a forked
 * child that begins to time (its parent's pid, kept in its journal for the
 * result recovered from it). SCOPE_LIKWID_JOURNAL=0: neither.
 * A journal that cannot be created: one warning, everything else as before. */
void sl_survive_begin(const char *output, pid_t pid, pid_t parent_pid, int mpi, int64_t rank,
                      int64_t origin_unix_ns, int tsc, const char *writer, double timeout_s);

/* After the result was delivered (Close, the exit hook): the journal goes. */
void sl_survive_end(void);

/* signals.c: the signals handled (SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGUSR2)
 * where the application has not set a handler or SIG_IGN, in process pid;
 * a second signal waits up to timeout_s for the first one's writer. */
void sl_signals_install(pid_t pid, double timeout_s);
/* The journal's result was delivered (or it is gone): a signal writes nothing. */
void sl_signals_journal_done(void);
/* Close or the exit hook delivers in the calling thread (on) / is done
 * (off): a signal in another thread waits for it instead of writing. */
void sl_signals_finishing(int on);

/* sigwrite.c. At Init: the writer (writer: SCOPE_LIKWID_WRITER or NULL),
 * its argv and environment, its stacks, for the journal's path. */
void sl_sigwrite_prepare(const char *journal, const char *writer, double timeout_s);
/* In the handler (async-signal-safe): runs the writer on the journal,
 * waits for it at most timeout_s (time stopped not counted; then it is
 * killed), and writes one line: "wrote PATH", or why not and the exact
 * scope-likwid recover command. */
void sl_sigwrite_run(int sig);
/* In the handler, when Close or the exit hook has begun: the recover command. */
void sl_sigwrite_hint(int sig);

#endif
