/* Internal to `scope-likwid run` (cmd_run.c): likwid-perfctr, probed
 * before the application runs, and the children it leaves behind. */
#ifndef SL_RUN_PERFCTR_H
#define SL_RUN_PERFCTR_H

#include <sys/types.h>

#include "why.h"

/* A wait status as a shell's exit code: the code, 128 + a signal. */
int sl_wait_code(int st);

/* Ends run's children (orphans adopted as subreaper, run's own leftover
 * probes): every one (all) or the stopped ones but `keep`, and reaps them
 * and every exited one but `keep`. Names each one ended on stderr when
 * `say` is set. Returns how many children are left (not ended, not
 * zombies). */
int sl_run_end_children(int all, int say, pid_t keep);

/* What the probes found. */
typedef enum sl_perfctr_verdict {
    SL_PERFCTR_COUNTS,     /* use it */
    SL_PERFCTR_CANNOT,     /* LIKWID cannot count on this host */
    SL_PERFCTR_OPTIONS,    /* it refuses the options given */
} sl_perfctr_verdict;

/* Whether likwid-perfctr can count here with these options, by what it
 * printed; else why. Exiting 0 is not enough: an unsupported CPU, MSRs it
 * cannot read and (5.5, perf_event) events it cannot set up still exit 0,
 * with an ERROR line. */
sl_perfctr_verdict sl_perfctr_works(const char *perfctr, char **opts, int nopts, sl_why *reason);

#endif
