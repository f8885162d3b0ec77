/* Internal header: not installed. The shim's group signals/: the terminating signals: handlers begun and ended with the journal, the
 * writer they start. */
#ifndef SL_SIGNALS_H
#define SL_SIGNALS_H

#include "spawn.h"

#pragma GCC visibility push(hidden)

/* What outlives a process that never
 * reaches Close (docs/SHIM.md, "When the process is killed"): the journal,
 * created at Init, and handlers for the terminating signals the application
 * left at their default, which mark the journal, have the writer turn it
 * into the result file, and die of the same signal. */
/* At Init, before the mode becomes ACTIVE (parent_pid 0), and in a forked
 * child that begins to time (its parent's pid, kept in its journal for the
 * result recovered from it). SCOPE_LIKWID_JOURNAL=0: neither.
 * A journal that cannot be created: one warning, everything else as before. */
void sl_survive_begin(const char *output, pid_t pid, pid_t parent_pid, int mpi, int64_t rank,
                      int64_t origin_unix_ns, int tsc, const char *writer, double timeout_s);

/* After the result was delivered (Close, the exit hook): the journal goes. */
void sl_survive_end(void);
/* At the Init of a later cycle with a result of its own: its journal
 * (sl_journal_renew) and the signal handlers again; one warning when it
 * cannot be had. */
void sl_survive_renew(const char *output, pid_t pid, int64_t cycle, int64_t origin_unix_ns,
                      const char *writer, double timeout_s);

/* handler.c: the signals handled (SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGUSR2)
 * where the application has not set a handler or SIG_IGN, in process pid;
 * a second signal waits up to timeout_s for the first one's writer. */
void sl_signals_install(pid_t pid, double timeout_s);
/* The journal's result was delivered (or it is gone): a signal writes nothing. */
void sl_signals_journal_done(void);
/* sigwrite.c. At Init: the writer (writer: SCOPE_LIKWID_WRITER or NULL),
 * its argv and environment, its stacks, for the journal's path and the
 * cycle's result (output: a result made for it at a change of user,
 * os/anchor.c, is filled through the writer's stdin). */
void sl_sigwrite_prepare(const char *journal, const char *output, const char *writer,
                         double timeout_s);
/* In the handler (async-signal-safe): runs the writer on the journal,
 * waits for it at most timeout_s (time stopped not counted; then it is
 * killed), and writes one line: "wrote PATH", or why not and the exact
 * scope-likwid recover command. */
void sl_sigwrite_run(int sig);
/* In the handler, when Close or the exit hook has begun: the recover command. */
void sl_sigwrite_hint(int sig);

/* The writer keeps its own deadline (SCOPE_LIKWID_TIMEOUT from the signal,
 * helpers/write_deadline.h) and says why it stopped; the handler waits a
 * second longer before it kills a writer that did not. */
#define WRITER_GRACE_S 1.0

#pragma GCC visibility pop

#endif
