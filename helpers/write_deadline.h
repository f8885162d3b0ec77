/* Internal header: not installed. The writer's own deadline when the
 * shim's signal handler runs it (scope-likwid-write --journal): it works
 * for SCOPE_LIKWID_TIMEOUT at most, and in a Slurm job for half of
 * Slurm's KillWait at most (slurm.conf; 30 s, Slurm's default, when none is
 * found), both counted from the signal, so that it ends, and says so,
 * before Slurm's SIGKILL ends everything. */
#ifndef SL_WRITE_DEADLINE_H
#define SL_WRITE_DEADLINE_H

#include <stddef.h>
#include <stdint.h>

/* Seconds left for the work (<= 0: none), given the signal's time on
 * CLOCK_MONOTONIC (0: unknown, now); why (cap bytes) names the bound. */
double sl_wd_budget(int64_t signal_ns, double timeout_s, char *why, size_t cap);

/* From now on, after `seconds`: the temporary result file removed (none
 * once the result is in place: the writer then finishes), one line
 * "scope-likwid-write: stopped at its deadline (WHY): nothing written,
 * the journal JOURNAL is kept" on stderr, exit status 1. */
void sl_wd_arm(double seconds, const char *why, const char *journal);

#endif
