/* Internal to h5/: placing files (h5_place.c). A result file is never
 * overwritten: written beside its name and linked, or numbered. */
#ifndef SL_H5_PLACE_H
#define SL_H5_PLACE_H

#include <stddef.h>

#include "diag.h"

/* Writes buf to a new temporary file in path's directory, fsyncs it and links
 * it to path, or to path with ".1", ".2", ... before its extension when path
 * exists; never overwrites. *written gets the name used. On failure nothing
 * is left. */
int sl_place_new(const char *path, const void *buf, size_t len, char **written, sl_diag *diag);
/* Writes buf into the regular file open for writing on fd (path: its name,
 * for messages): emptied, written from its start, fsynced. */
int sl_place_fd(int fd, const char *path, const void *buf, size_t len, sl_diag *diag);
/* The same in two steps, for a file written in place by HDF5 (merge): an
 * empty temporary file next to path (*tmp, newly allocated), then, once it
 * is complete, fsynced and linked like sl_place_new (tmp removed on
 * failure; the caller frees the name). */
int sl_place_temp(const char *path, char **tmp, sl_diag *diag);
int sl_place_done(char *tmp, const char *path, char **written, sl_diag *diag);
/* Replaces path by a file holding buf (same mode), through a temporary file
 * renamed over it. */
int sl_place_replace(const char *path, const void *buf, size_t len, sl_diag *diag);
/* Reads a whole file into a malloc'd buffer. */
int sl_slurp(const char *path, void **buf, size_t *len, sl_diag *diag);

#endif
