/* Internal header: not installed. Reads a result file back into sl_run
 * values (for show and the tests). */
#ifndef SL_H5READ_H
#define SL_H5READ_H

#include <stddef.h>
#include "diag.h"
#include "run.h"

/* The file's /metadata (format 2; docs/FORMAT.md). Fields the file lacks
 * are "" and -1. */
typedef struct sl_file_meta {
    int present;        /* the file has /metadata */
    char *hostname;
    char *timestamp;    /* ISO-8601 UTC of the run start */
    int64_t total_cores;
    sl_run_meta run;    /* mpi_size, omp_num_threads, times, cwd, user, SLURM_* */
} sl_file_meta;

typedef struct sl_runset {
    size_t nruns;
    sl_run *runs;       /* one per rank group, in ascending rank order; run.rank
                         * is the group's number (distinct), run.group its name */
    sl_file_meta meta;
} sl_runset;

/* 0 or negative errno; what was wrong (not HDF5, not our format, a missing
 * dataset...) goes to diag as "file: ...: expected ...". */
int sl_h5_read(const char *path, sl_runset *out, sl_diag *diag);
/* The same from a file image in memory (the fuzz target); name is used in
 * diag lines. */
int sl_h5_read_image(const void *buf, size_t len, const char *name, sl_runset *out,
                     sl_diag *diag);
void sl_runset_free(sl_runset *set);
void sl_file_meta_free(sl_file_meta *m);

#endif
