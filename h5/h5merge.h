/* Internal header: not installed. Merging result files: every rank group of
 * the inputs copied unchanged into one new file (`scope-likwid merge`). */
#ifndef SL_H5MERGE_H
#define SL_H5MERGE_H

#include <stddef.h>

#include "diag.h"

/* Told when a rank group of `input` is written under another name than it
 * had, because `clash_group` of `clash_input` already holds that rank. */
typedef void (*sl_h5_clash_fn)(void *ctx, const char *input, const char *group,
                               const char *clash_group, const char *clash_input,
                               const char *written_as);

/* Told which input is about to be read (so a crash inside libhdf5 can be
 * blamed on the right file). */
typedef void (*sl_h5_reading_fn)(void *ctx, const char *input);

/* Writes the merged file at out, placed like every result file (temporary
 * name, never overwriting: *written, newly allocated, says which name was
 * used; no half file on failure). Inputs are only read, each checked by the
 * guard (h5_guard.h) first; each must be a result file (format attributes,
 * timing/ in every rank group). A further copy of a rank is numbered after
 * the highest rank (docs/FORMAT.md) and told to clash; clash and reading
 * may be NULL. Inputs whose /metadata run_id differ (different launches)
 * are refused unless allow_mixed; when the rank groups ran on different
 * hosts, CPUs or executables, one line in diag says so (a note: the merge
 * still succeeds). 0 or negative errno (reason in diag). */
int sl_h5_merge(const char *out, char *const *inputs, size_t ninputs, int allow_mixed,
                sl_h5_clash_fn clash, sl_h5_reading_fn reading, void *ctx, char **written,
                sl_diag *diag);

/* The launch an input belongs to: its /metadata run_id (*run_id newly
 * allocated, "" when it has none: an older format, scope-profiler's own
 * file). 0, or negative errno after a diag line naming the file (not a
 * readable HDF5 file, damaged). */
int sl_h5_launch(const char *path, char **run_id, sl_diag *diag);

#endif
