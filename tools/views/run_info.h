/* Internal header: not installed. What every view says about where a run
 * came from (its rank group, MPI rank, pid, host, merge origin) and about
 * the file's /metadata, as (name, value) pairs: show (table, CSV, JSON) and
 * plot print the same fields under the same names. */
#ifndef SL_RUN_INFO_H
#define SL_RUN_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "h5read.h"

typedef struct sl_info {
    const char *name;   /* an SL_H5N_ name, a SLURM_* variable or "total_time_ns" */
    int known;          /* 0: the file does not say (JSON null) */
    int is_int;
    int64_t i;
    char *s;            /* the value as text (stray bytes as \xHH), never NULL */
} sl_info;

typedef struct sl_infos {
    size_t n, cap;
    sl_info *v;
} sl_infos;

/* The run's origin: rank_group (its group name), mpi_rank, pid, hostname,
 * merged_from, merged_from_group (unknown when never merged). 0 or -ENOMEM. */
int sl_info_origin(const sl_run *run, sl_infos *out);
/* The file's /metadata: timestamp, hostname, mpi_size, omp_num_threads,
 * total_cores, start_time_ns, finalize_time_ns, total_time_ns (finalize -
 * start), working_directory, user, then its SLURM_* variables; nothing
 * when the file has none. 0 or -ENOMEM. */
int sl_info_meta(const sl_file_meta *m, sl_infos *out);
/* The entry named name, NULL when absent or unknown. */
const sl_info *sl_info_get(const sl_infos *in, const char *name);
void sl_infos_free(sl_infos *in);

/* "Rank 3 (group rank3, mpi_rank 0, pid 12, host h[, from F:G])", and
 * "Run (timestamp T, host H, ..., SLURM_JOB_ID J)" (NULL when the file's
 * /metadata says nothing): one line each, malloc'd; control bytes become
 * '?' (tables and titles cannot hold them). extra: appended inside the
 * brackets when not "" (show adds the executable). NULL on ENOMEM. */
char *sl_info_rank_title(const sl_run *run, const char *extra);
char *sl_info_run_title(const sl_file_meta *m, int *none);

#endif
