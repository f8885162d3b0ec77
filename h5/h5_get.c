/* Reading helpers: every attribute and dataset is checked for the type and
 * shape the format promises, and anything else becomes one diag line
 * "FILE: OBJECT: what is wrong: expected what" and -EINVAL, never a crash. */
#include "h5_guard.h"
#include "h5_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(sl_h5r *r, const char *path, const char *name, const char *what,
               const char *expected)
{
    H5Eclear2(H5E_DEFAULT);
    sl_diag_add(r->diag, r->file, 0, "%s/%s: %s: expected %s", path, name, what, expected);
    return -EINVAL;
}

/* Opens an attribute, or reports it missing. */
static hid_t open_attr(sl_h5r *r, hid_t obj, const char *path, const char *name,
                       const char *expected)
{
    /* Open first and ask why only when that fails: the look-up before
     * every open cost more than the open itself on large files. */
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) {
        H5Eclear2(H5E_DEFAULT);
        bad(r, path, name, H5Aexists(obj, name) > 0 ? "attribute unreadable" : "attribute missing",
            expected);
    }
    return a;
}

/* Number of elements of a scalar or 1-D dataspace; -1 for other ranks. */
static long long extent_1d(hid_t space, int *is_scalar)
{
    int nd = H5Sget_simple_extent_ndims(space);
    *is_scalar = nd == 0;
    if (nd == 0)
        return 1;
    if (nd != 1)
        return -1;
    hsize_t d;
    H5Sget_simple_extent_dims(space, &d, NULL);
    return (long long)d;
}

/* Reads n strings (variable or fixed length, any character set) into
 * newly allocated C strings. */
static int read_strings(hid_t a, hid_t ftype, size_t n, char **out)
{
    hid_t mtype = H5Tcopy(ftype);
    if (mtype < 0)
        return -EIO;
    int rc = -EIO;
    if (H5Tis_variable_str(ftype) > 0) {
        char **v = calloc(n ? n : 1, sizeof *v);
        if (v && H5Aread(a, mtype, v) >= 0) {
            rc = 0;
            for (size_t i = 0; i < n; i++) {
                out[i] = strdup(v[i] ? v[i] : "");
                if (!out[i])
                    rc = -ENOMEM;
                if (v[i])
                    H5free_memory(v[i]);
            }
        }
        free(v);
    } else {
        size_t size = H5Tget_size(ftype);
        char *buf = size ? calloc(n ? n : 1, size) : NULL;
        if (buf && H5Aread(a, mtype, buf) >= 0) {
            rc = 0;
            for (size_t i = 0; i < n; i++) {
                out[i] = strndup(buf + i * size, size);
                if (!out[i])
                    rc = -ENOMEM;
            }
        }
        free(buf);
    }
    H5Tclose(mtype);
    if (rc)
        for (size_t i = 0; i < n; i++) {
            free(out[i]);
            out[i] = NULL;
        }
    return rc;
}

int sl_h5r_str(sl_h5r *r, hid_t obj, const char *path, const char *name, char **out)
{
    const char *want = "a string";
    hid_t a = open_attr(r, obj, path, name, want);
    if (a < 0)
        return -EINVAL;
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    int scalar, rc = -EINVAL;
    if (t < 0 || s < 0 || H5Tget_class(t) != H5T_STRING || extent_1d(s, &scalar) != 1)
        bad(r, path, name, "not a single string", want);
    else {
        char *v = NULL;
        rc = read_strings(a, t, 1, &v);
        if (rc == -EIO)
            rc = bad(r, path, name, "unreadable string", want);
        if (!rc) {
            free(*out);
            *out = v;
        }
    }
    if (t >= 0)
        H5Tclose(t);
    if (s >= 0)
        H5Sclose(s);
    H5Aclose(a);
    return rc;
}

int sl_h5r_i64(sl_h5r *r, hid_t obj, const char *path, const char *name, int64_t *out)
{
    const char *want = "an int64";
    hid_t a = open_attr(r, obj, path, name, want);
    if (a < 0)
        return -EINVAL;
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    int scalar, rc = -EINVAL;
    if (t < 0 || s < 0 || H5Tget_class(t) != H5T_INTEGER || extent_1d(s, &scalar) != 1)
        bad(r, path, name, "not a single integer", want);
    else if (H5Aread(a, H5T_NATIVE_INT64, out) < 0)
        bad(r, path, name, "unreadable integer", want);
    else
        rc = 0;
    if (t >= 0)
        H5Tclose(t);
    if (s >= 0)
        H5Sclose(s);
    H5Aclose(a);
    return rc;
}

static const char *strv_want(char *buf, size_t len, size_t want_n)
{
    if (want_n == (size_t)-1)
        snprintf(buf, len, "a 1-D string array");
    else
        snprintf(buf, len, "a 1-D string array of %zu", want_n);
    return buf;
}

int sl_h5r_strv(sl_h5r *r, hid_t obj, const char *path, const char *name, size_t want_n,
                char ***out, size_t *n)
{
    char want[96]; /* the expectation, built only for a message */
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0)
        a = open_attr(r, obj, path, name, strv_want(want, sizeof want, want_n));
    if (a < 0)
        return -EINVAL;
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    int scalar = 0, rc = -EINVAL;
    long long len = s >= 0 ? extent_1d(s, &scalar) : -1;
    if (t < 0 || H5Tget_class(t) != H5T_STRING || len < 0 || scalar)
        bad(r, path, name, "not a 1-D string array", strv_want(want, sizeof want, want_n));
    else if (want_n != (size_t)-1 && (size_t)len != want_n)
        bad(r, path, name, "wrong length", strv_want(want, sizeof want, want_n));
    else if (sl_h5_guard_attr(a, (uint64_t)len))
        bad(r, path, name, "more strings declared than the file holds",
            strv_want(want, sizeof want, want_n));
    else {
        char **v = calloc(len ? (size_t)len : 1, sizeof *v);
        rc = v ? read_strings(a, t, (size_t)len, v) : -ENOMEM;
        if (rc == -EIO)
            rc = bad(r, path, name, "unreadable strings", strv_want(want, sizeof want, want_n));
        if (rc)
            free(v);
        else {
            *out = v;
            *n = (size_t)len;
        }
    }
    if (t >= 0)
        H5Tclose(t);
    if (s >= 0)
        H5Sclose(s);
    H5Aclose(a);
    return rc;
}

int sl_h5r_u8v(sl_h5r *r, hid_t obj, const char *path, const char *name, char **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (H5Aexists(obj, name) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    const char *want = "a 1-D uint8 array";
    hid_t a = open_attr(r, obj, path, name, want);
    if (a < 0)
        return -EINVAL;
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    int scalar = 0, rc = -EINVAL;
    long long len = s >= 0 ? extent_1d(s, &scalar) : -1;
    if (t < 0 || H5Tget_class(t) != H5T_INTEGER || H5Tget_size(t) != 1 || len < 0 || scalar)
        bad(r, path, name, "not a byte array", want);
    else if (sl_h5_guard_attr(a, (uint64_t)len))
        bad(r, path, name, "more bytes declared than the file holds", want);
    else {
        char *v = malloc((size_t)len + 1);
        if (!v)
            rc = -ENOMEM;
        else if (len && H5Aread(a, H5T_NATIVE_UINT8, v) < 0) {
            free(v);
            bad(r, path, name, "unreadable bytes", want);
        } else {
            v[len] = '\0';
            *out = v;
            *n = (size_t)len;
            rc = 0;
        }
    }
    if (t >= 0)
        H5Tclose(t);
    if (s >= 0)
        H5Sclose(s);
    H5Aclose(a);
    return rc;
}

static hid_t open_data(sl_h5r *r, hid_t g, const char *path, const char *name, const char *want)
{
    /* H5Oopen + H5Iget_type: the same on HDF5 1.10 and later. Why an open
     * failed is asked only then (a look-up before every open is costly). */
    hid_t d = H5Oopen(g, name, sl_h5_guard_lapl());
    if (d < 0) {
        H5Eclear2(H5E_DEFAULT);
        bad(r, path, name, H5Lexists(g, name, H5P_DEFAULT) > 0 ? "dataset unreadable" : "dataset missing",
            want);
        return -1;
    }
    if (H5Iget_type(d) != H5I_DATASET) {
        H5Oclose(d);
        bad(r, path, name, "not a dataset", want);
        return -1;
    }
    return d;
}

static void shape_text(char *buf, size_t len, int rank, size_t d0, size_t d1)
{
    char a[24], b[24];
    snprintf(a, sizeof a, d0 == (size_t)-1 ? "N" : "%zu", d0);
    snprintf(b, sizeof b, d1 == (size_t)-1 ? "N" : "%zu", d1);
    if (rank == 1)
        snprintf(buf, len, "shape (%s,)", a);
    else
        snprintf(buf, len, "shape (%s, %s)", a, b);
}

/* Checks the open dataset's shape against d0/d1 ((size_t)-1: any). */
static int check_shape(sl_h5r *r, hid_t d, const char *path, const char *name, int rank,
                       size_t *d0, size_t *d1, const char *kind)
{
    /* The expectation text is only needed for a message: built lazily. */
    char want[96], shape[64];
#define SHAPE_WANT()                                                   \
    (shape_text(shape, sizeof shape, rank, *d0, d1 ? *d1 : 0),         \
     snprintf(want, sizeof want, "%s of %s", kind, shape), want)
    hid_t s = H5Dget_space(d);
    int nd = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
    hsize_t dims[2] = {0, 0};
    if (nd == rank)
        H5Sget_simple_extent_dims(s, dims, NULL);
    if (s >= 0)
        H5Sclose(s);
    if (nd != rank)
        return bad(r, path, name, "wrong number of dimensions", SHAPE_WANT());
    if ((*d0 != (size_t)-1 && dims[0] != *d0) ||
        (rank == 2 && *d1 != (size_t)-1 && dims[1] != *d1))
        return bad(r, path, name, "wrong shape", SHAPE_WANT());
    if (sl_h5_guard_dataset(d, rank == 1 ? dims[0] : dims[0] * dims[1]))
        return bad(r, path, name, "more data declared than the file holds", SHAPE_WANT());
#undef SHAPE_WANT
    *d0 = (size_t)dims[0];
    if (rank == 2)
        *d1 = (size_t)dims[1];
    return 0;
}

int sl_h5r_shape(sl_h5r *r, hid_t g, const char *path, const char *name, int rank, size_t *d0,
                 size_t *d1)
{
    hid_t d = open_data(r, g, path, name, "a dataset");
    if (d < 0)
        return -EINVAL;
    int rc = check_shape(r, d, path, name, rank, d0, d1, "a dataset");
    H5Oclose(d);
    return rc;
}

int sl_h5r_data(sl_h5r *r, hid_t g, const char *path, const char *name, int is_float, int rank,
                size_t d0, size_t d1, void *dst)
{
    const char *kind = is_float ? "a float64 dataset" : "an int64 dataset";
    hid_t d = open_data(r, g, path, name, kind);
    if (d < 0)
        return -EINVAL;
    int rc = check_shape(r, d, path, name, rank, &d0, &d1, kind);
    hid_t t = rc ? -1 : H5Dget_type(d);
    if (!rc && (t < 0 || H5Tget_class(t) != (is_float ? H5T_FLOAT : H5T_INTEGER)))
        rc = bad(r, path, name, "wrong type", kind);
    size_t count = rank == 1 ? d0 : d0 * d1;
    if (!rc && count &&
        H5Dread(d, is_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                dst) < 0)
        rc = bad(r, path, name, "unreadable data", kind);
    if (t >= 0)
        H5Tclose(t);
    H5Oclose(d);
    return rc;
}

typedef struct names_acc {
    char **v;
    size_t n, cap;
    int oom;
} names_acc;

static herr_t add_name(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g;
    (void)info;
    names_acc *acc = data;
    if (acc->n == acc->cap) {
        size_t cap = acc->cap ? acc->cap * 2 : 16;
        char **grown = realloc(acc->v, cap * sizeof *grown);
        if (!grown) {
            acc->oom = 1;
            return -1;
        }
        acc->v = grown;
        acc->cap = cap;
    }
    acc->v[acc->n] = strdup(name);
    if (!acc->v[acc->n]) {
        acc->oom = 1;
        return -1;
    }
    acc->n++;
    return 0;
}

void sl_h5r_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int sl_h5r_links(sl_h5r *r, hid_t g, const char *path, char ***names, size_t *n)
{
    names_acc acc = {0};
    hsize_t idx = 0;
    herr_t rc = H5Literate(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, add_name, &acc);
    if (rc < 0 && !acc.oom) {
        /* creation order not tracked in this file: name order */
        H5Eclear2(H5E_DEFAULT);
        sl_h5r_free_names(acc.v, acc.n);
        memset(&acc, 0, sizeof acc);
        idx = 0;
        rc = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, add_name, &acc);
    }
    if (rc < 0) {
        int oom = acc.oom;
        sl_h5r_free_names(acc.v, acc.n);
        if (oom)
            return -ENOMEM;
        sl_diag_add(r->diag, r->file, 0, "%s: cannot list the group: expected a readable group", path);
        H5Eclear2(H5E_DEFAULT);
        return -EINVAL;
    }
    *names = acc.v;
    *n = acc.n;
    return 0;
}
