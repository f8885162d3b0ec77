/* Internal to tools/h5*.c: helpers shared by the result-file writer and
 * reader. Not a contract: only h5write.h and h5read.h are. */
#ifndef SL_H5_UTIL_H
#define SL_H5_UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "run.h"

#define SL_H5_FORMAT "scope-likwid"
#define SL_H5_FORMAT_VERSION 1

/* Turns HDF5's automatic error printing off for this thread: failures
 * become diag lines, never a stack dump on stderr. */
void sl_h5_quiet(void);
/* The innermost HDF5 error message of this thread's stack, "" when none. */
void sl_h5_errmsg(char *buf, size_t len);

/* ---- writing (h5_put.c) ---- */

/* Property lists and types reused for every object of one file. */
typedef struct sl_h5w {
    const char *file;   /* for diag lines */
    sl_diag *diag;
    hid_t str_t;        /* variable-length UTF-8 string */
    hid_t scalar;       /* scalar dataspace */
    hid_t acpl;         /* UTF-8 attribute names */
    hid_t lcpl;         /* UTF-8 link names */
    hid_t gcpl;         /* no time stamps */
    hid_t gcpl_ordered; /* no time stamps, links and attrs in creation order */
} sl_h5w;

int sl_h5w_open(sl_h5w *w, const char *file, sl_diag *diag);
void sl_h5w_close(sl_h5w *w);
/* Reports a failure (with HDF5's reason) and returns err. */
int sl_h5w_fail(sl_h5w *w, int err, const char *what, const char *where);

hid_t sl_h5w_group(sl_h5w *w, hid_t parent, const char *name, int ordered);
/* String attrs: s is made valid UTF-8 (stray bytes as \xHH) when it is not. */
int sl_h5w_str(sl_h5w *w, hid_t obj, const char *name, const char *s);
int sl_h5w_strv(sl_h5w *w, hid_t obj, const char *name, char *const *v, size_t n);
int sl_h5w_i64(sl_h5w *w, hid_t obj, const char *name, int64_t v);
int sl_h5w_u8v(sl_h5w *w, hid_t obj, const char *name, const void *v, size_t n);
/* Datasets of rank 1 (dims[0]) or 2 (dims[0] x dims[1]). */
int sl_h5w_i64_data(sl_h5w *w, hid_t g, const char *name, const int64_t *v, size_t n);
int sl_h5w_f64_data(sl_h5w *w, hid_t g, const char *name, const double *v, size_t rows,
                    size_t cols, int rank);

/* ---- one run into its rank group (h5_run.c) ---- */

/* Writes rank<R> with its attributes, timing/ and likwid/. */
int sl_h5w_run(sl_h5w *w, hid_t file, const sl_run *run);
/* Writes rank<R>/likwid only (rank group must exist, likwid must not). */
int sl_h5w_likwid(sl_h5w *w, hid_t rank_group, const sl_run *run);
/* Writes rank<R>/timing (always present in a result file). */
int sl_h5w_timing(sl_h5w *w, hid_t rank_group, const sl_timing *t);
/* Writes the rank attributes the group lacks (all, for a new group). */
int sl_h5w_rank_attrs(sl_h5w *w, hid_t g, const sl_run *run);

/* ---- placing files (h5_place.c) ---- */

/* Writes buf to a new temporary file in path's directory, fsyncs it and links
 * it to path, or to path with ".1", ".2", ... before its extension when path
 * exists; never overwrites. *written gets the name used. On failure nothing
 * is left. */
int sl_place_new(const char *path, const void *buf, size_t len, char **written, sl_diag *diag);
/* Replaces path by a file holding buf (same mode), through a temporary file
 * renamed over it. */
int sl_place_replace(const char *path, const void *buf, size_t len, sl_diag *diag);
/* Reads a whole file into a malloc'd buffer. */
int sl_slurp(const char *path, void **buf, size_t *len, sl_diag *diag);

/* ---- reading (h5_get.c) ---- */

typedef struct sl_h5r {
    const char *file;
    sl_diag *diag;
} sl_h5r;

/* Each returns 0, or -EINVAL after a diag "file: path: ...: expected ...". */
int sl_h5r_str(sl_h5r *r, hid_t obj, const char *path, const char *name, char **out);
int sl_h5r_i64(sl_h5r *r, hid_t obj, const char *path, const char *name, int64_t *out);
/* 1-D string array attr; *n must equal want unless want is (size_t)-1. */
int sl_h5r_strv(sl_h5r *r, hid_t obj, const char *path, const char *name, size_t want,
                char ***out, size_t *n);
/* Optional uint8 array attr: *out NULL when absent. */
int sl_h5r_u8v(sl_h5r *r, hid_t obj, const char *path, const char *name, char **out,
               size_t *n);
/* Shape of a dataset of the given rank; (size_t)-1 in *d0 / *d1 accepts
 * any extent and returns the actual one, other values must match. */
int sl_h5r_shape(sl_h5r *r, hid_t g, const char *path, const char *name, int rank, size_t *d0,
                 size_t *d1);
/* Reads a dataset that must be integer (is_float 0, read as int64) or float
 * (read as double) and have exactly the shape (d0,) or (d0, d1). */
int sl_h5r_data(sl_h5r *r, hid_t g, const char *path, const char *name, int is_float, int rank,
                size_t d0, size_t d1, void *dst);
/* Names of the links of group g in creation order when the file tracks it,
 * else in name order. */
int sl_h5r_links(sl_h5r *r, hid_t g, const char *path, char ***names, size_t *n);
void sl_h5r_free_names(char **names, size_t n);

#endif
