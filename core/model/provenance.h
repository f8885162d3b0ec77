/* Internal header: not installed. Where a process ran: the CPU, the kernel,
 * its clock (the rank group's provenance attrs, docs/FORMAT.md), read once,
 * at Init, into fixed buffers: nothing allocated, no helper started; and
 * which batch job and launch it belongs to (the shim's names and run_id,
 * `scope-likwid run`'s names). */
#ifndef SL_PROVENANCE_H
#define SL_PROVENANCE_H

#include <stdint.h>
#include "run.h"

typedef struct sl_provenance {
    char cpu_model[128];        /* /proc/cpuinfo's first "model name"; "" unknown */
    char kernel_release[65];    /* uname's release */
    char clock_source[32];      /* /sys/.../clocksource0/current_clocksource */
    int64_t tsc_hz;             /* CPUID 0x15's TSC rate; 0 unknown */
} sl_provenance;

/* Fills p from this host; what cannot be read stays "" or 0. */
void sl_provenance_read(sl_provenance *p);

/* Copies p into the run's fields. 0 or -ENOMEM. */
int sl_provenance_set(sl_run *run, const sl_provenance *p);

/* Batch job id from SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, FLUX_JOB_ID, JOB_ID;
 * NULL if none. */
const char *sl_job_from_env(void);

/* The id shared by every process of one launch (docs/FORMAT.md, run_id):
 * "slurm-JOB.STEP" (or pbs-, lsf-, flux-, sge-JOB), then "/" and the MPI
 * launcher's namespace (PMIX_NAMESPACE, else OMPI_MCA_ess_base_jobid) when
 * set; then, for a process that is not an MPI rank (mpi 0: a launch of its
 * own), "/" and "HOST:PID:START" of this process (alone without a job or
 * namespace). Newly allocated; NULL on ENOMEM. */
char *sl_run_id_from_env(const char *host, int64_t pid, int64_t start_unix_ns, int mpi);

#endif
