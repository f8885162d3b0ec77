/* Internal header: not installed. Writes the result file (docs/FORMAT.md).
 * HDF5 lives only in h5/: only tools and helpers link it, never the shim. */
#ifndef SL_H5WRITE_H
#define SL_H5WRITE_H

#include "diag.h"
#include "run.h"

/* Writes a new result file holding the runs (one rank<R> group each; two runs
 * with the same rank are an error). The file is written under a temporary
 * name in the target directory and renamed into place only when complete;
 * an existing file is never overwritten: "out.h5" becomes "out.1.h5",
 * "out.2.h5", ... and *written (newly allocated, may be NULL) says which.
 * On failure no file is left behind. 0 or negative errno (reason in diag). */
int sl_h5_write(const char *path, const sl_run *runs, size_t nruns,
                char **written, sl_diag *diag);

/* The same into the regular file open for writing on fd, whatever it
 * holds (emptied first, then written from its start and synced): a file
 * made for the result by a process that could create it, for one that no
 * longer can (the shim before a change of user). path names it in
 * messages. 0 or negative errno (reason in diag). */
int sl_h5_write_fd(int fd, const char *path, const sl_run *runs, size_t nruns, sl_diag *diag);

/* Adds (or replaces) rank<R>/likwid for run->rank in an existing HDF5 file,
 * leaving every other object untouched. The change is made on a copy in the
 * same directory and renamed over the original, so an interrupted write
 * leaves the original intact. 0 or negative errno (reason in diag). */
int sl_h5_into(const char *path, const sl_run *run, sl_diag *diag);

/* For a deadline's signal handler in a process that writes one result
 * (scope-likwid-write at a signal): the temporary file being written now
 * (NULL: none; the handler may remove it), and how many files were put in
 * place so far. Reading either is async-signal-safe; putting a file in
 * place is never interrupted by a handler. */
const char *sl_h5_pending_temp(void);
unsigned sl_h5_placed(void);

#endif
