/* Internal header: not installed. Reads a result file back into sl_run
 * values (for show and the tests). */
#ifndef SL_H5READ_H
#define SL_H5READ_H

#include <stddef.h>
#include "diag.h"
#include "run.h"

typedef struct sl_runset {
    size_t nruns;
    sl_run *runs;       /* one per rank<R> group, in ascending rank order */
} sl_runset;

/* 0 or negative errno; what was wrong (not HDF5, not our format, a missing
 * dataset...) goes to diag as "file: ...: expected ...". */
int sl_h5_read(const char *path, sl_runset *out, sl_diag *diag);
/* The same from a file image in memory (the fuzz target); name is used in
 * diag lines. */
int sl_h5_read_image(const void *buf, size_t len, const char *name, sl_runset *out,
                     sl_diag *diag);
void sl_runset_free(sl_runset *set);

#endif
