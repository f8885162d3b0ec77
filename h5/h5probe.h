/* Internal header: not installed. What kind of file a path holds, as far as
 * HDF5 can tell without reading its content (the CLI's first question). */
#ifndef SL_H5PROBE_H
#define SL_H5PROBE_H

#include <stddef.h>

typedef enum sl_h5_probed {
    SL_H5_PROBED_NOT_HDF5,     /* not an HDF5 file, or HDF5 cannot open it */
    SL_H5_PROBED_OTHER,        /* HDF5, neither ours nor scope-profiler's */
    SL_H5_PROBED_OURS,         /* HDF5 that says it is ours (its content may be damaged) */
    SL_H5_PROBED_SP,           /* a file of scope-profiler's layout (h5_sp.c) */
} sl_h5_probed;

/* HDF5's error printing is silenced during the probe and restored after. */
sl_h5_probed sl_h5_probe(const char *path);

/* What is wrong with a file HDF5 cannot open, for "PATH: WHY: expected ...":
 * "cut short (N of the M bytes its superblock records)" when it begins
 * with an HDF5 superblock whose recorded end lies past the file's end (a
 * copy or a write that did not finish), else "not an HDF5 file". Written
 * into buf (64 bytes are enough); returns buf. */
const char *sl_h5_unreadable_why(const char *path, char *buf, size_t size);

#endif
