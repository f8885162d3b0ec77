/* Internal header: not installed. Where the result file goes: the MPI rank
 * from the launcher's environment and the SCOPE_LIKWID_OUTPUT template. */
#ifndef SL_SHIM_OUTPUT_PATH_H
#define SL_SHIM_OUTPUT_PATH_H

#include <stdint.h>

typedef struct sl_output_vars {
    int64_t rank;           /* %r */
    int64_t pid;            /* %p */
    const char *host;       /* %h */
    const char *job;        /* %j, NULL: no batch job ("nojob") */
    const char *cwd;        /* relative results are resolved against it; NULL: keep relative */
} sl_output_vars;

/* Rank from the first set variable of PMI_RANK, OMPI_COMM_WORLD_RANK,
 * PMIX_RANK, SLURM_PROCID, MV2_COMM_WORLD_RANK, MPI_LOCALRANKID, ALPS_APP_PE,
 * PALS_RANKID. Returns 1 and sets *rank when one holds a rank (a garbage value
 * is warned about and the next variable tried), 0 outside MPI and in a world
 * of one process (sl_world_size_from_env() == 1: an MPI singleton). */
int sl_rank_from_env(int64_t *rank);

/* The MPI world size from the first of OMPI_COMM_WORLD_SIZE, PMI_SIZE,
 * PMIX_SIZE, SLURM_NTASKS, MV2_COMM_WORLD_SIZE, PALS_SIZE that holds a
 * positive count; -1 when none does. */
int64_t sl_world_size_from_env(void);

/* Batch job id from SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, JOB_ID; NULL if none. */
const char *sl_job_from_env(void);

/* Default template: "scope-likwid-rank%r.h5" under MPI, "scope-likwid-%p.h5"
 * otherwise. */
const char *sl_output_default(int mpi);

/* Expands %r %p %h %j %%; an unknown %x (or a lone % at the end) is warned
 * about and kept literally. Newly allocated; NULL on ENOMEM. */
char *sl_output_expand(const char *tmpl, const sl_output_vars *v);

/* Where the result goes for what SCOPE_LIKWID_OUTPUT expanded to (path;
 * taken over, freed or returned): a directory, or a name ending in '/', gets
 * the default name (sl_output_default) inside it; /dev/null means no result
 * file: NULL with *no_result set, said once; another file that is not a
 * regular one (a device, FIFO, socket) is refused with one line and the
 * default name in v->cwd is used (nothing is created next to it). NULL
 * without *no_result on ENOMEM. */
char *sl_output_place(char *path, int mpi, const sl_output_vars *v, int *no_result);

#endif
