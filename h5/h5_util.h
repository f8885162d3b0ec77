/* Internal header: not installed. Helpers shared by h5/'s writer, reader
 * and merge. Not a contract: only h5write.h, h5read.h and h5merge.h are. */
#ifndef SL_H5_UTIL_H
#define SL_H5_UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "run.h"
#include "schema.h"

/* ---- HDF5's error printing (h5_err.c) ---- */

/* Every entry point of h5/ silences HDF5's automatic error printing
 * (failures become diag lines, never a stack dump on stderr) and restores
 * the caller's handler before it returns. */
typedef struct sl_h5_errsave {
    H5E_auto2_t func;
    void *data;
} sl_h5_errsave;
void sl_h5_silence(sl_h5_errsave *s);
void sl_h5_restore(const sl_h5_errsave *s);
/* The innermost HDF5 error message of this thread's stack, "" when none. */
void sl_h5_errmsg(char *buf, size_t len);

/* ---- rank group names (h5_rank.c) ---- */

/* 1 and *rank, *copy (0 for "rank<R>") when name is "rank<R>" or
 * "rank<R>.<k>" (decimal, no leading zeros, k >= 1); else 0. */
int sl_h5_rank_parse(const char *name, int64_t *rank, int64_t *copy);
/* "rank<R>", or "rank<R>.<copy>" when copy > 0. */
void sl_h5_rank_name(char *buf, size_t len, int64_t rank, unsigned copy);

/* A rank group found in a file, and the number its run gets. */
typedef struct sl_h5_rankref {
    int64_t rank, copy; /* from the name (sl_h5_rank_parse) */
    const char *name;
    int64_t number;     /* distinct over the file */
} sl_h5_rankref;
/* Numbers the groups and sorts them by number: rank<R> is R; a format-1
 * rank<R>.<k> (in order of R, then k) takes the next number after the
 * highest R, as `scope-likwid merge` numbers further copies. */
void sl_h5_rank_number(sl_h5_rankref *refs, size_t n);

/* ---- writing (h5_put.c) ---- */

/* Property lists and types reused for every object of one file. */
typedef struct sl_h5w {
    const char *file;   /* for diag lines */
    sl_diag *diag;
    hid_t str_t;        /* variable-length UTF-8 string */
    hid_t scalar;       /* scalar dataspace */
    hid_t space[2];     /* 1-D and 2-D dataspaces, their extent set for each object */
    hid_t acpl;         /* UTF-8 attribute names */
    hid_t lcpl;         /* UTF-8 link names */
    hid_t gcpl;         /* no time stamps */
    hid_t gcpl_ordered; /* no time stamps, links and attrs in creation order */
} sl_h5w;

int sl_h5w_open(sl_h5w *w, const char *file, sl_diag *diag);
/* A 128 KiB metadata cache that never grows (h5_put.c: why and what it saves). */
herr_t sl_h5_small_cache(hid_t fapl);
void sl_h5w_close(sl_h5w *w);
/* Reports a failure (with HDF5's reason) and returns err. */
int sl_h5w_fail(sl_h5w *w, int err, const char *what, const char *where);
/* The root attributes: format, format_version, created_by (h5write.c). */
int sl_h5w_root(sl_h5w *w, hid_t file);

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
/* attr tag: the exact tag, or its \xHH form plus tag_bytes when not UTF-8. */
int sl_h5w_tag(sl_h5w *w, hid_t g, const char *tag, size_t len);

/* ---- one run into its rank group (h5_run.c) ---- */

/* Writes rank<R> with its attributes, timing/ and likwid/. */
int sl_h5w_run(sl_h5w *w, hid_t file, const sl_run *run);
/* Writes rank<R>/likwid only (rank group must exist, likwid must not). */
int sl_h5w_likwid(sl_h5w *w, hid_t rank_group, const sl_run *run);
/* multi[i]: region i's tag occurs in more than one group of this run
 * (newly allocated, NULL on ENOMEM). */
unsigned char *sl_h5w_multi_groups(const sl_likwid *lw);
/* Writes rank<R>/timing (always present in a result file). */
int sl_h5w_timing(sl_h5w *w, hid_t rank_group, const sl_timing *t);
/* Writes the rank attributes the group lacks (all, for a new group). */
int sl_h5w_rank_attrs(sl_h5w *w, hid_t g, const sl_run *run);

/* ---- /metadata (h5_meta.c) ---- */

/* Writes /metadata from the run (fields it does not know are left out). */
int sl_h5w_meta(sl_h5w *w, hid_t file, const sl_run *run);
/* "YYYY-MM-DDTHH:MM:SS.uuuuuu+00:00" of the run start, "" when unknown. */
void sl_h5_timestamp(char *buf, size_t len, const sl_run *run);
/* Hard link rank<R>/regions -> rank<R>/timing/regions (scope-profiler's
 * timing layout; h5_run.c). */
int sl_h5w_regions_link(sl_h5w *w, hid_t rank_group);

/* ---- copying by value (h5_attr_copy.c) ---- */

/* Every attribute of src into dst, read and written anew (what H5Ocopy
 * cannot copy: h5_guard.h); where: src's path for the messages. 0, or
 * -EINVAL / -ENOMEM after a diag line naming the attribute and why. */
int sl_h5_copy_attrs(hid_t src, hid_t dst, const char *where, const char *file, sl_diag *diag);
/* Copies src's object name (and everything below it) to dst as dst_name:
 * H5Ocopy without attributes, then each object's attributes by value. */
int sl_h5_copy_by_value(hid_t src, const char *name, hid_t dst, const char *dst_name,
                        hid_t lcpl, const char *file, sl_diag *diag);

/* ---- the loops over the schema's rows (schema.c) ---- */

#define SL_H5_ROW(id) (&sl_h5_schema[id])
#define SL_H5_ROWS_ATTR (1u << SL_H5K_ATTR)
#define SL_H5_ROWS_DATA (1u << SL_H5K_DATA)
#define SL_H5_ROWS_ALL (SL_H5_ROWS_ATTR | SL_H5_ROWS_DATA)

/* A derived field (an FN row) of the element at hand: its place's handler. */
typedef int (*sl_h5w_fn)(sl_h5w *w, hid_t g, sl_h5_fid id, const void *elem, void *ctx);
/* Writes the fields of place (of the kinds in `kinds`) from elem, in row
 * order: each from the member its row names, the FN rows through fn.
 * lacking: only the attributes g does not have yet. */
int sl_h5w_rows(sl_h5w *w, hid_t g, sl_h5_obj place, unsigned kinds, const void *elem,
                sl_h5w_fn fn, void *ctx, int lacking);

/* ---- reading (h5_get.c; the loops over the rows: schema.c) ---- */

typedef struct sl_h5r {
    const char *file;
    sl_diag *diag;
    int64_t version; /* the file's format_version, once read */
} sl_h5r;

/* A place's rows are read in two passes. The first (sl_h5r_rows_attrs)
 * reads its attributes and opens, for their shape, the datasets that fix an
 * extent not known yet (a region's threads, calls): into a staging element
 * whose extents sl_h5r_rows_unknown marked unknown, as the model's element
 * can only be made once its extents are known. The caller then makes the
 * element, sl_h5r_rows_carry moves the first pass's members into it (strings
 * change hands), sl_h5r_rows_drop frees what stays in the staging element,
 * and the second pass (sl_h5r_rows_data) reads the datasets into the made
 * element (or sl_h5r_rows_close closes them when it was not made). A place
 * without datasets is read by the first pass straight into its model (op
 * NULL). */
typedef int (*sl_h5r_fn)(sl_h5r *r, hid_t g, const char *path, sl_h5_fid id, void *elem,
                         void *ctx);
typedef struct sl_h5_opened {
    int n;
    struct {
        sl_h5_fid id;
        hid_t d;
    } at[4];
} sl_h5_opened;
void sl_h5r_rows_unknown(sl_h5_obj place, void *elem);
int sl_h5r_rows_attrs(sl_h5r *r, hid_t g, const char *path, sl_h5_obj place, void *elem,
                      sl_h5r_fn fn, void *ctx, sl_h5_opened *op);
void sl_h5r_rows_carry(sl_h5_obj place, void *dst, void *src);
void sl_h5r_rows_drop(sl_h5_obj place, void *elem);
int sl_h5r_rows_data(sl_h5r *r, hid_t g, const char *path, sl_h5_obj place, void *elem,
                     sl_h5_opened *op);
void sl_h5r_rows_close(sl_h5_opened *op);

/* The file-access list every reader opens a file with (h5_get.c: what and
 * why); H5P_DEFAULT's equal when it cannot be made, so the caller always
 * has one to close unless it is negative. */
hid_t sl_h5_read_fapl(void);

struct sl_file_meta;
/* Reads /metadata (absent: out->present 0, fields "" and -1). */
int sl_h5r_meta(sl_h5r *r, hid_t file, struct sl_file_meta *out);

/* Checks the root attributes format and format_version (1 up to the one
 * this build writes) and sets r->version (h5read.c). */
int sl_h5r_format(sl_h5r *r, hid_t file);
/* Reads rank group name of f (numbered rank) into run (h5read.c). */
int sl_h5r_run(sl_h5r *r, hid_t f, const char *name, int64_t rank, sl_run *run);

/* Attribute and dataset readers: the name, type and rank come from the
 * field's schema row. Each returns 0, or -EINVAL after a diag
 * "file: path/name: ...: expected ...". A field that may be absent (not
 * required, or newer than the file's format_version) and is absent gives 0
 * and leaves *out as it was (*out NULL and *n 0 for sl_h5r_u8v). */
int sl_h5r_str(sl_h5r *r, hid_t obj, const char *path, const sl_h5_field *f, char **out);
int sl_h5r_i64(sl_h5r *r, hid_t obj, const char *path, const sl_h5_field *f, int64_t *out);
/* String attr name of obj, one of the matches of pattern row pat (schema.c). */
int sl_h5r_match_str(sl_h5r *r, hid_t obj, const char *path, const sl_h5_field *pat,
                     const char *name, char **out);
/* Group name of parent, -1 when it is missing or not a group (no message). */
hid_t sl_h5_open_group(hid_t parent, const char *name);
/* What name below parent is, for a message that expected a group: "a
 * group", "a dataset", "a named datatype", "missing" (no such link) or "not
 * readable". No soft or external link is followed. */
const char *sl_h5_object_kind(hid_t parent, const char *name);
/* 1-D string array attr; *n must equal want unless want is (size_t)-1.
 * out NULL: its type and length checked, the strings not read. */
int sl_h5r_strv(sl_h5r *r, hid_t obj, const char *path, const sl_h5_field *f, size_t want,
                char ***out, size_t *n);
int sl_h5r_u8v(sl_h5r *r, hid_t obj, const char *path, const sl_h5_field *f, char **out,
               size_t *n);
/* Shape of a dataset; (size_t)-1 in *d0 / *d1 accepts any extent and
 * returns the actual one, other values must match. */
int sl_h5r_shape(sl_h5r *r, hid_t g, const char *path, const sl_h5_field *f, size_t *d0,
                 size_t *d1);
/* Reads a dataset that must be integer (I64, read as int64) or float (F64,
 * read as double) and have exactly the shape (d0,) or (d0, d1). */
int sl_h5r_data(sl_h5r *r, hid_t g, const char *path, const sl_h5_field *f, size_t d0,
                size_t d1, void *dst);
/* The same in two steps, the dataset opened once (an open costs more than
 * most reads): open it and check its shape as sl_h5r_shape does (-1 after
 * a diag line), then read it into dst and close it (closed also on
 * failure). */
hid_t sl_h5r_open_shape(sl_h5r *r, hid_t g, const char *path, const sl_h5_field *f, size_t *d0,
                        size_t *d1);
int sl_h5r_read_open(sl_h5r *r, hid_t d, const char *path, const sl_h5_field *f, size_t d0,
                     size_t d1, void *dst);
/* Names of the links of group g in creation order when the file tracks it,
 * else in name order. */
int sl_h5r_links(sl_h5r *r, hid_t g, const char *path, char ***names, size_t *n);
/* 1 when paths a and b below g are one object (hard links to it), 0 when
 * they are two, -1 when one of them cannot be opened. */
int sl_h5_same_object(hid_t g, const char *a, const char *b);
void sl_h5r_free_names(char **names, size_t n);

#endif
