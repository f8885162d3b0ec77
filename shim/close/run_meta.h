/* Internal header: not installed. The run's metadata (core/run.h
 * sl_run_meta, written as /metadata): its start is taken at Init, the rest
 * at Close. */
#ifndef SL_SHIM_RUN_META_H
#define SL_SHIM_RUN_META_H

#include "run.h"

/* Called once from Init: CLOCK_MONOTONIC now is the run's start_time_ns. */
void sl_run_meta_start(void);
/* Called at Close, after the run's timing and mpi_rank are filled: the
 * launcher's world size, OpenMP threads, start and finalize times, working
 * directory, user and SLURM_* variables. Allocates (Close time); a failure
 * leaves a field unknown. */
void sl_run_meta_fill(sl_run *run);

/* Calls fn(ctx, name, value) for every environment variable whose name
 * starts with prefix (run_record.c: LIKWID_* for the run, SLURM_* here). */
void sl_each_env(const char *prefix, void (*fn)(void *ctx, const char *name, const char *value),
                 void *ctx);

#endif
