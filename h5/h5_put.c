/* Writing helpers: attributes and datasets with the choices that keep the
 * writer fast (default dataset properties, no time stamps on groups, reused
 * property lists) and the types the format promises (int64, float64, UTF-8
 * strings). */
#include "h5_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

/* Datasets use HDF5's default creation properties (contiguous, allocated at
 * the first write, no fill pass when that write covers the whole dataset):
 * for the default list HDF5 skips copying the list into every dataset and
 * the filter callbacks, which cost more than the rest of H5Dcreate2 (HDF5
 * 1.10.8, callgrind: 500 regions, 2500 datasets, 556 M -> 469 M
 * instructions). The price is a modification time in each dataset's header,
 * which the default list asks for and no reader relies on. Compact layout
 * (data in the object header) was measured slower: 13% more instructions
 * for 1000 regions x 128 threads x 8 events. */

/* Attributes stay in the object's header (compact storage) up to HDF5's
 * highest limit: libhdf5 1.10.8's H5Ocopy crashes on dense string
 * attributes (h5_guard.h), and /metadata holds one per SLURM_* variable
 * (about 55 under srun). An attribute over 64 KiB is dense anyway; merge
 * copies such an object by value. */
#define SL_H5_MAX_COMPACT_ATTRS 65535

int sl_h5w_fail(sl_h5w *w, int err, const char *what, const char *where)
{
    char msg[256];
    sl_h5_errmsg(msg, sizeof msg);
    sl_diag_add(w->diag, w->file, 0, "cannot %s %s%s%s", what, where, *msg ? ": HDF5: " : "", msg);
    H5Eclear2(H5E_DEFAULT);
    return err;
}

int sl_h5w_open(sl_h5w *w, const char *file, sl_diag *diag)
{
    memset(w, 0, sizeof *w);
    w->file = file;
    w->diag = diag;
    w->str_t = H5Tcopy(H5T_C_S1);
    w->scalar = H5Screate(H5S_SCALAR);
    hsize_t one[2] = {1, 1};
    w->space[0] = H5Screate_simple(1, one, NULL);
    w->space[1] = H5Screate_simple(2, one, NULL);
    w->acpl = H5Pcreate(H5P_ATTRIBUTE_CREATE);
    w->lcpl = H5Pcreate(H5P_LINK_CREATE);
    w->gcpl = H5Pcreate(H5P_GROUP_CREATE);
    w->gcpl_ordered = H5Pcreate(H5P_GROUP_CREATE);
    int ok = w->str_t >= 0 && w->scalar >= 0 && w->space[0] >= 0 && w->space[1] >= 0 && w->acpl >= 0 && w->lcpl >= 0 && w->gcpl >= 0 &&
             w->gcpl_ordered >= 0;
    ok = ok && H5Tset_size(w->str_t, H5T_VARIABLE) >= 0 &&
         H5Tset_cset(w->str_t, H5T_CSET_UTF8) >= 0 &&
         H5Pset_char_encoding(w->acpl, H5T_CSET_UTF8) >= 0 &&
         H5Pset_char_encoding(w->lcpl, H5T_CSET_UTF8) >= 0 &&
         H5Pset_obj_track_times(w->gcpl, 0) >= 0 &&
         H5Pset_attr_phase_change(w->gcpl, SL_H5_MAX_COMPACT_ATTRS, 0) >= 0 &&
         /* a header big enough for a region's links and attributes from the
          * start: no continuation chunks added one attribute at a time
          * (500 regions: -6.5% instructions, +0.8% file size; larger
          * estimates gained little and grew the file by 4-10%) */
         H5Pset_link_phase_change(w->gcpl, 32, 24) >= 0 &&
         H5Pset_est_link_info(w->gcpl, 32, 16) >= 0 &&
         H5Pset_obj_track_times(w->gcpl_ordered, 0) >= 0 &&
         H5Pset_attr_phase_change(w->gcpl_ordered, SL_H5_MAX_COMPACT_ATTRS, 0) >= 0 &&
         H5Pset_link_creation_order(w->gcpl_ordered,
                                    H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) >= 0 &&
         H5Pset_attr_creation_order(w->gcpl_ordered,
                                    H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) >= 0;
    if (!ok) {
        sl_h5w_fail(w, -EIO, "set up", "HDF5 property lists");
        sl_h5w_close(w);
        return -EIO;
    }
    return 0;
}

void sl_h5w_close(sl_h5w *w)
{
    if (w->str_t > 0)
        H5Tclose(w->str_t);
    if (w->scalar > 0)
        H5Sclose(w->scalar);
    for (int i = 0; i < 2; i++)
        if (w->space[i] > 0)
            H5Sclose(w->space[i]);
    w->space[0] = w->space[1] = 0;
    hid_t pl[] = {w->acpl, w->lcpl, w->gcpl, w->gcpl_ordered};
    for (size_t i = 0; i < sizeof pl / sizeof pl[0]; i++)
        if (pl[i] > 0)
            H5Pclose(pl[i]);
    w->str_t = w->scalar = w->acpl = w->lcpl = w->gcpl = w->gcpl_ordered = 0;
}

/* A dataspace of rank 1 or 2 with dims: one of the writer's two, its
 * extent changed (cheaper than a new dataspace per object); -1 on failure. */
static hid_t space_of(sl_h5w *w, int rank, const hsize_t *dims)
{
    hid_t s = w->space[rank - 1];
    return H5Sset_extent_simple(s, rank, dims, NULL) < 0 ? -1 : s;
}

hid_t sl_h5w_group(sl_h5w *w, hid_t parent, const char *name, int ordered)
{
    hid_t g = H5Gcreate2(parent, name, w->lcpl, ordered ? w->gcpl_ordered : w->gcpl, H5P_DEFAULT);
    if (g < 0)
        sl_h5w_fail(w, -EIO, "create group", name);
    return g;
}

static int put_attr(sl_h5w *w, hid_t obj, const char *name, hid_t ftype, hid_t mtype,
                    hid_t space, const void *buf)
{
    hid_t a = H5Acreate2(obj, name, ftype, space, w->acpl, H5P_DEFAULT);
    if (a < 0)
        return sl_h5w_fail(w, -EIO, "create attribute", name);
    herr_t rc = H5Awrite(a, mtype, buf);
    H5Aclose(a);
    if (rc < 0)
        return sl_h5w_fail(w, -EIO, "write attribute", name);
    return 0;
}

/* s itself when valid UTF-8, else a displayable copy in *tmp. */
static const char *valid_text(const char *s, char **tmp)
{
    *tmp = NULL;
    if (!s)
        return "";
    size_t n = strlen(s);
    if (sl_utf8_valid(s, n))
        return s;
    *tmp = sl_tag_display(s, n);
    return *tmp;
}

int sl_h5w_str(sl_h5w *w, hid_t obj, const char *name, const char *s)
{
    char *tmp;
    const char *v = valid_text(s, &tmp);
    if (!v)
        return -ENOMEM;
    int rc = put_attr(w, obj, name, w->str_t, w->str_t, w->scalar, &v);
    free(tmp);
    return rc;
}

int sl_h5w_strv(sl_h5w *w, hid_t obj, const char *name, char *const *v, size_t n)
{
    const char **vv = calloc(n ? n : 1, sizeof *vv);
    char **tmp = calloc(n ? n : 1, sizeof *tmp);
    int rc = -ENOMEM;
    if (!vv || !tmp)
        goto out;
    for (size_t i = 0; i < n; i++) {
        vv[i] = valid_text(v ? v[i] : NULL, &tmp[i]);
        if (!vv[i])
            goto out;
    }
    hsize_t dims[1] = {n};
    hid_t space = space_of(w, 1, dims);
    if (space < 0) {
        rc = sl_h5w_fail(w, -EIO, "create dataspace for", name);
        goto out;
    }
    rc = put_attr(w, obj, name, w->str_t, w->str_t, space, vv);
out:
    if (tmp)
        for (size_t i = 0; i < n; i++)
            free(tmp[i]);
    free(tmp);
    free(vv);
    return rc;
}

int sl_h5w_i64(sl_h5w *w, hid_t obj, const char *name, int64_t v)
{
    return put_attr(w, obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, w->scalar, &v);
}

int sl_h5w_u8v(sl_h5w *w, hid_t obj, const char *name, const void *v, size_t n)
{
    hsize_t dims[1] = {n};
    hid_t space = space_of(w, 1, dims);
    if (space < 0)
        return sl_h5w_fail(w, -EIO, "create dataspace for", name);
    return put_attr(w, obj, name, H5T_STD_U8LE, H5T_NATIVE_UINT8, space, v);
}

static int put_data(sl_h5w *w, hid_t g, const char *name, hid_t ftype, hid_t mtype,
                    const void *v, int rank, const hsize_t *dims, size_t bytes)
{
    hid_t space = space_of(w, rank, dims);
    if (space < 0)
        return sl_h5w_fail(w, -EIO, "create dataspace for", name);

    hid_t d = H5Dcreate2(g, name, ftype, space, w->lcpl, H5P_DATASET_CREATE_DEFAULT, H5P_DEFAULT);
    if (d < 0)
        return sl_h5w_fail(w, -EIO, "create dataset", name);
    herr_t rc = bytes ? H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) : 0;
    H5Dclose(d);
    if (rc < 0)
        return sl_h5w_fail(w, -EIO, "write dataset", name);
    return 0;
}

int sl_h5w_i64_data(sl_h5w *w, hid_t g, const char *name, const int64_t *v, size_t n)
{
    hsize_t dims[1] = {n};
    return put_data(w, g, name, H5T_STD_I64LE, H5T_NATIVE_INT64, v, 1, dims, n * sizeof *v);
}

int sl_h5w_f64_data(sl_h5w *w, hid_t g, const char *name, const double *v, size_t rows,
                    size_t cols, int rank)
{
    hsize_t dims[2] = {rows, cols};
    size_t n = rank == 1 ? rows : rows * cols;
    return put_data(w, g, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, rank, dims, n * sizeof *v);
}

/* A small, fixed metadata cache. The writer never goes back to an object
 * it closed, so a cache that holds the whole file only grows the heap: each
 * dataset's decoded header (about 2 KiB in memory) stays until H5Fclose,
 * which then flushes and frees them all. With 128 KiB, closed objects are
 * written out and freed as the writer goes; measured (HDF5 1.10.8,
 * 500 regions x 64 threads x 8 events): 438 M -> 403 M instructions, and
 * 1000 x 128 x 8 peaks at 51 MB instead of 81 MB RSS. 8 KiB thrashes
 * (more instructions, larger file); 64-256 KiB are alike. */
herr_t sl_h5_small_cache(hid_t fapl)
{
    H5AC_cache_config_t c;
    memset(&c, 0, sizeof c);
    c.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (H5Pget_mdc_config(fapl, &c) < 0)
        return -1;
    c.set_initial_size = 1;
    c.initial_size = 128u << 10;
    c.max_size = 128u << 10;
    c.min_size = 128u << 10;
    c.incr_mode = H5C_incr__off;
    c.flash_incr_mode = H5C_flash_incr__off;
    c.decr_mode = H5C_decr__off;
    return H5Pset_mdc_config(fapl, &c);
}

int sl_h5w_tag(sl_h5w *w, hid_t g, const char *tag, size_t len)
{
    if (sl_utf8_valid(tag, len))
        return sl_h5w_str(w, g, SL_H5N_tag, tag);
    char *shown = sl_tag_display(tag, len);
    if (!shown)
        return -ENOMEM;
    int rc = sl_h5w_str(w, g, SL_H5N_tag, shown);
    free(shown);
    if (rc == 0)
        rc = sl_h5w_u8v(w, g, SL_H5N_tag_bytes, tag, len);
    return rc;
}
