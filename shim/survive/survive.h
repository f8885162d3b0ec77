/* Internal header: not installed. What outlives a process that never
 * reaches Close (docs/SHIM.md, "When the process is killed"): the journal,
 * created at Init, and handlers for the terminating signals the application
 * left at their default, which mark the journal and die of the same signal. */
#ifndef SL_SHIM_SURVIVE_H
#define SL_SHIM_SURVIVE_H

#include <stdint.h>
#include <sys/types.h>

/* At Init, before the mode becomes ACTIVE. SCOPE_LIKWID_JOURNAL=0: neither.
 * A journal that cannot be created: one warning, everything else as before. */
void sl_survive_begin(const char *output, pid_t pid, int mpi, int64_t rank,
                      int64_t origin_unix_ns, int tsc);

/* After the result was delivered (Close, the exit hook): the journal goes. */
void sl_survive_end(void);

/* signals.c: the signals handled (SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGUSR2)
 * where the application has not set a handler or SIG_IGN. */
void sl_signals_install(void);

#endif
