/* Internal header: not installed. What kind of file a path holds, as far as
 * HDF5 can tell without reading its content (the CLI's first question). */
#ifndef SL_H5PROBE_H
#define SL_H5PROBE_H

typedef enum sl_h5_probed {
    SL_H5_PROBED_NOT_HDF5,     /* not an HDF5 file, or HDF5 cannot open it */
    SL_H5_PROBED_OTHER,        /* HDF5, neither ours nor scope-profiler's */
    SL_H5_PROBED_OURS,         /* HDF5 that says it is ours (its content may be damaged) */
    SL_H5_PROBED_SP,           /* a file of scope-profiler's layout (h5_sp.c) */
} sl_h5_probed;

/* HDF5's error printing is silenced during the probe and restored after. */
sl_h5_probed sl_h5_probe(const char *path);

#endif
