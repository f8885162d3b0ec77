/* Internal header: not installed. Asking Slurm whether a job step has
 * ended (squeue, else sacct for a job the controller no longer holds):
 * what `scope-likwid recover` asks before it touches a journal written on
 * another host or boot. */
#ifndef SL_SLURM_JOB_H
#define SL_SLURM_JOB_H

#include <stddef.h>

enum { SL_SLURM_UNKNOWN = -1, SL_SLURM_RUNS = 0, SL_SLURM_ENDED = 1 };

/* Step `step` of job `job` ("" : the job's batch script or an salloc
 * shell, which end with the job) of Slurm cluster `cluster` ("" unknown).
 * SL_SLURM_ENDED: no process of it runs; SL_SLURM_RUNS; SL_SLURM_UNKNOWN:
 * Slurm cannot tell (no squeue, no answer, another cluster). why (cap
 * bytes) says what Slurm said, for one line. Runs squeue (and sacct,
 * scontrol) from PATH's absolute directories, each for 20 s at most. */
int sl_slurm_step_ended(const char *cluster, const char *job, const char *step, char *why,
                        size_t cap);

#endif
