/* Reading helpers: every attribute and dataset is checked for the type and
 * shape the format promises, and anything else becomes one diag line
 * "FILE: OBJECT: what is wrong: expected what" and -EINVAL, never a crash. */
#include "h5_guard.h"
#include "h5_util.h"
#include "mem.h"
#include "vec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reading a file costs HDF5 more in metadata handling than in I/O: the
 * whole file read into memory at open (core driver, no writing back), a
 * fixed 128 KiB metadata cache (as the writer's: HDF5's default one grows,
 * is resized and freed as a whole), and every object's metadata evicted
 * when it is closed (the reader never comes back to it). Nothing in the
 * file changes. */
hid_t sl_h5_read_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return -1;
    if (H5Pset_fapl_core(fapl, 1u << 20, 0) < 0 || sl_h5_small_cache(fapl) < 0 ||
        H5Pset_evict_on_close(fapl, 1) < 0) {
        H5Pclose(fapl);
        H5Eclear2(H5E_DEFAULT);
        return -1;
    }
    return fapl;
}

static int bad(sl_h5r *r, const char *path, const char *name, const char *what,
               const char *expected)
{
    H5Eclear2(H5E_DEFAULT);
    sl_diag_add(r->diag, r->file, 0, "%s/%s: %s: expected %s", path, name, what, expected);
    return -EINVAL;
}

/* An open attribute with its type and dataspace. */
typedef struct attr_ref {
    hid_t a, t, s;
    H5T_class_t cls;
    long long len; /* elements of a scalar or 1-D space, else -1 */
    int scalar;
} attr_ref;

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

static void attr_fill(attr_ref *x, hid_t a)
{
    x->a = a;
    x->t = H5Aget_type(a);
    x->s = H5Aget_space(a);
    x->cls = x->t >= 0 ? H5Tget_class(x->t) : H5T_NO_CLASS;
    x->len = x->s >= 0 ? extent_1d(x->s, &x->scalar) : -1;
}

/* A field that may be absent from this file: optional, or newer than it. */
static int may_lack(const sl_h5r *r, const sl_h5_field *f)
{
    return f->need != SL_H5_REQ || f->since > r->version;
}

/* Opens f's attribute with its type and space: 1; 0 when it is absent and
 * may be; -EINVAL when missing (reported). */
static int attr_open(sl_h5r *r, hid_t obj, const char *path, const sl_h5_field *f,
                     const char *expected, attr_ref *x)
{
    memset(x, 0, sizeof *x);
    x->t = x->s = -1;
    if (may_lack(r, f) && H5Aexists(obj, f->name) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    /* Open first and ask why only when that fails: the look-up before
     * every open cost more than the open itself on large files. */
    x->a = H5Aopen(obj, f->name, H5P_DEFAULT);
    if (x->a < 0) {
        H5Eclear2(H5E_DEFAULT);
        return bad(r, path, f->name,
                   H5Aexists(obj, f->name) > 0 ? "attribute unreadable" : "attribute missing",
                   expected);
    }
    attr_fill(x, x->a);
    return 1;
}

static void attr_close(attr_ref *x)
{
    if (x->t >= 0)
        H5Tclose(x->t);
    if (x->s >= 0)
        H5Sclose(x->s);
    H5Aclose(x->a);
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
        sl_strings_clear(out, n);
    return rc;
}

/* attr_open for one value of class cls: 1 (x open), 0 (absent and
 * optional) or -EINVAL (said: not_one, x closed). */
static int scalar_open(sl_h5r *r, hid_t obj, const char *path, const sl_h5_field *f,
                       const char *want, H5T_class_t cls, const char *not_one, attr_ref *x)
{
    int rc = attr_open(r, obj, path, f, want, x);
    if (rc <= 0)
        return rc;
    if (x->cls == cls && x->len == 1)
        return 1;
    bad(r, path, f->name, not_one, want);
    attr_close(x);
    return -EINVAL;
}

int sl_h5r_str(sl_h5r *r, hid_t obj, const char *path, const sl_h5_field *f, char **out)
{
    const char *want = "a string";
    attr_ref x;
    int rc = scalar_open(r, obj, path, f, want, H5T_STRING, "not a single string", &x);
    if (rc <= 0)
        return rc;
    char *v = NULL;
    rc = read_strings(x.a, x.t, 1, &v);
    if (rc == -EIO)
        rc = bad(r, path, f->name, "unreadable string", want);
    if (!rc) {
        free(*out);
        *out = v;
    }
    attr_close(&x);
    return rc;
}

int sl_h5r_i64(sl_h5r *r, hid_t obj, const char *path, const sl_h5_field *f, int64_t *out)
{
    const char *want = "an int64";
    attr_ref x;
    int rc = scalar_open(r, obj, path, f, want, H5T_INTEGER, "not a single integer", &x);
    if (rc <= 0)
        return rc;
    rc = 0;
    if (H5Aread(x.a, H5T_NATIVE_INT64, out) < 0)
        rc = bad(r, path, f->name, "unreadable integer", want);
    attr_close(&x);
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

int sl_h5r_strv(sl_h5r *r, hid_t obj, const char *path, const sl_h5_field *f, size_t want_n,
                char ***out, size_t *n)
{
    char want[96]; /* the expectation, built only for a message */
    attr_ref x;
    hid_t a = H5Aopen(obj, f->name, H5P_DEFAULT); /* the common case, no message built */
    int rc;
    if (a >= 0) {
        memset(&x, 0, sizeof x);
        attr_fill(&x, a);
    } else {
        H5Eclear2(H5E_DEFAULT);
        rc = attr_open(r, obj, path, f, strv_want(want, sizeof want, want_n), &x);
        if (rc <= 0)
            return rc;
    }
    rc = -EINVAL;
    if (x.cls != H5T_STRING || x.len < 0 || x.scalar)
        bad(r, path, f->name, "not a 1-D string array", strv_want(want, sizeof want, want_n));
    else if (want_n != (size_t)-1 && (size_t)x.len != want_n)
        bad(r, path, f->name, "wrong length", strv_want(want, sizeof want, want_n));
    else if (sl_h5_guard_attr(x.a, (uint64_t)x.len))
        bad(r, path, f->name, "more strings declared than the file holds",
            strv_want(want, sizeof want, want_n));
    else if (!out) { /* checked, not needed */
        *n = (size_t)x.len;
        rc = 0;
    } else {
        size_t len = (size_t)x.len;
        char **v = calloc(len ? len : 1, sizeof *v);
        rc = v ? read_strings(x.a, x.t, len, v) : -ENOMEM;
        if (rc == -EIO)
            rc = bad(r, path, f->name, "unreadable strings", strv_want(want, sizeof want, want_n));
        if (rc)
            free(v);
        else {
            *out = v;
            *n = len;
        }
    }
    attr_close(&x);
    return rc;
}

int sl_h5r_u8v(sl_h5r *r, hid_t obj, const char *path, const sl_h5_field *f, char **out,
               size_t *n)
{
    *out = NULL;
    *n = 0;
    const char *want = "a 1-D uint8 array";
    attr_ref x;
    int rc = attr_open(r, obj, path, f, want, &x);
    if (rc <= 0)
        return rc;
    rc = -EINVAL;
    if (x.cls != H5T_INTEGER || H5Tget_size(x.t) != 1 || x.len < 0 || x.scalar)
        bad(r, path, f->name, "not a byte array", want);
    else if (sl_h5_guard_attr(x.a, (uint64_t)x.len))
        bad(r, path, f->name, "more bytes declared than the file holds", want);
    else {
        char *v = malloc((size_t)x.len + 1);
        if (!v)
            rc = -ENOMEM;
        else if (x.len && H5Aread(x.a, H5T_NATIVE_UINT8, v) < 0) {
            free(v);
            bad(r, path, f->name, "unreadable bytes", want);
        } else {
            v[x.len] = '\0';
            *out = v;
            *n = (size_t)x.len;
            rc = 0;
        }
    }
    attr_close(&x);
    return rc;
}

hid_t sl_h5_open_group(hid_t parent, const char *name)
{
    /* opened without a look-up first (one per region cost 1% of show);
     * a missing link only makes the open fail */
    hid_t g = H5Oopen(parent, name, sl_h5_guard_lapl());
    if (g >= 0 && H5Iget_type(g) != H5I_GROUP) {
        H5Oclose(g);
        g = -1;
    }
    if (g < 0)
        H5Eclear2(H5E_DEFAULT);
    return g;
}

const char *sl_h5_object_kind(hid_t parent, const char *name)
{
    H5O_info_t info;
    htri_t has = H5Lexists(parent, name, sl_h5_guard_lapl());
    herr_t rc = has > 0 ? H5Oget_info_by_name2(parent, name, &info, H5O_INFO_BASIC,
                                               sl_h5_guard_lapl())
                        : -1;
    H5Eclear2(H5E_DEFAULT);
    if (has == 0)
        return "missing";
    if (rc < 0)
        return "not readable";
    return info.type == H5O_TYPE_GROUP           ? "a group"
           : info.type == H5O_TYPE_DATASET       ? "a dataset"
           : info.type == H5O_TYPE_NAMED_DATATYPE ? "a named datatype"
                                                 : "not readable";
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

static const char *data_kind(const sl_h5_field *f)
{
    return f->type == SL_H5T_F64 ? "a float64 dataset" : "an int64 dataset";
}

/* Opens f's dataset and checks its shape; -1 after a diag line saying
 * "expected KIND of shape ...". */
static hid_t open_checked(sl_h5r *r, hid_t g, const char *path, const sl_h5_field *f, size_t *d0,
                          size_t *d1, const char *kind)
{
    hid_t d = open_data(r, g, path, f->name, kind);
    if (d < 0)
        return -1;
    if (check_shape(r, d, path, f->name, f->rank, d0, d1, kind)) {
        H5Oclose(d);
        return -1;
    }
    return d;
}

hid_t sl_h5r_open_shape(sl_h5r *r, hid_t g, const char *path, const sl_h5_field *f, size_t *d0,
                        size_t *d1)
{
    return open_checked(r, g, path, f, d0, d1, "a dataset");
}

int sl_h5r_shape(sl_h5r *r, hid_t g, const char *path, const sl_h5_field *f, size_t *d0,
                 size_t *d1)
{
    hid_t d = sl_h5r_open_shape(r, g, path, f, d0, d1);
    if (d < 0)
        return -EINVAL;
    H5Oclose(d);
    return 0;
}

int sl_h5r_read_open(sl_h5r *r, hid_t d, const char *path, const sl_h5_field *f, size_t d0,
                     size_t d1, void *dst)
{
    const char *name = f->name, *kind = data_kind(f);
    int is_float = f->type == SL_H5T_F64;
    int rc = 0;
    hid_t t = H5Dget_type(d);
    if (t < 0 || H5Tget_class(t) != (is_float ? H5T_FLOAT : H5T_INTEGER))
        rc = bad(r, path, name, "wrong type", kind);
    size_t count = f->rank == 1 ? d0 : d0 * d1;
    if (!rc && count &&
        H5Dread(d, is_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                dst) < 0)
        rc = bad(r, path, name, "unreadable data", kind);
    if (t >= 0)
        H5Tclose(t);
    H5Oclose(d);
    return rc;
}

int sl_h5r_data(sl_h5r *r, hid_t g, const char *path, const sl_h5_field *f, size_t d0,
                size_t d1, void *dst)
{
    hid_t d = open_checked(r, g, path, f, &d0, &d1, data_kind(f));
    if (d < 0)
        return -EINVAL;
    return sl_h5r_read_open(r, d, path, f, d0, d1, dst);
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
    if (SL_VEC_RESERVE(acc->v, acc->cap, acc->n, 1) < 0) {
        acc->oom = 1;
        return -1;
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

/* Object address of path below g, 0 when it cannot be opened. */
static haddr_t addr_of(hid_t g, const char *path)
{
    H5O_info_t info;
    if (H5Oget_info_by_name2(g, path, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    return info.addr;
}

int sl_h5_same_object(hid_t g, const char *a, const char *b)
{
    haddr_t x = addr_of(g, a), y = addr_of(g, b);
    return !x || !y ? -1 : x == y;
}
