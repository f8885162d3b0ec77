/* Copying what H5Ocopy cannot: objects with attributes in dense storage.
 * libhdf5 1.10.8's H5Ocopy crashes copying dense variable-length string
 * attributes (a NULL call under H5T__conv_vlen; h5_guard.h), which an
 * object holds past its compact limit (older writers of ours: 32; any
 * writer: an attribute over 64 KiB). So such a tree is copied without its
 * attributes, and each attribute is then read and written anew. */
#include "h5_util.h"
#include "h5_guard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where attributes go: one object's (copy_one), or a tree's (copy_obj_attrs:
 * dst the copy of its top object, where the top's path in the input). */
typedef struct attr_copy {
    hid_t dst;          /* the object the attributes go to */
    const char *where;  /* its path in the input, for the messages */
    const char *file;
    sl_diag *diag;
    int rc;
} attr_copy;

static herr_t copy_one(hid_t src, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    attr_copy *c = data;
    hid_t a = H5Aopen(src, name, H5P_DEFAULT);
    hid_t ft = a >= 0 ? H5Aget_type(a) : -1;
    hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
    hid_t mt = ft >= 0 ? H5Tget_native_type(ft, H5T_DIR_DEFAULT) : -1;
    hid_t acpl = a >= 0 ? H5Aget_create_plist(a) : -1;
    hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    size_t el = mt >= 0 ? H5Tget_size(mt) : 0;
    void *buf = NULL;
    const char *why = NULL;
    if (acpl < 0 || n < 0 || !el)
        why = "cannot read its type or shape";
    else if (sl_h5_guard_attr(a, (uint64_t)n) || (uint64_t)n > SIZE_MAX / el)
        why = "declares more elements than the file holds";
    else if (!(buf = calloc(n ? (size_t)n : 1, el)))
        c->rc = -ENOMEM;
    else if (H5Aread(a, mt, buf) < 0)
        why = "cannot read its value";
    else {
        hid_t b = H5Acreate2(c->dst, name, ft, sp, acpl, H5P_DEFAULT);
        if (b < 0 || H5Awrite(b, mt, buf) < 0)
            why = "cannot write it into the output";
        if (b >= 0)
            H5Aclose(b);
        H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, buf); /* the strings H5Aread allocated */
    }
    if (why) {
        char msg[256];
        sl_h5_errmsg(msg, sizeof msg);
        sl_diag_add(c->diag, c->file, 0, "%s: attribute %s: %s%s%s", c->where, name, why,
                    *msg ? ": HDF5: " : "", msg);
        c->rc = -EINVAL;
    }
    free(buf);
    hid_t ids[] = {acpl, mt, sp, ft};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (ids[i] >= 0)
            H5Idec_ref(ids[i]);
    if (a >= 0)
        H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    return c->rc ? -1 : 0;
}

int sl_h5_copy_attrs(hid_t src, hid_t dst, const char *where, const char *file, sl_diag *diag)
{
    attr_copy c = {dst, where, file, diag, 0};
    hsize_t idx = 0;
    /* in creation order where the object tracks it (a rank group does) */
    herr_t it = H5Aiterate2(src, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, copy_one, &c);
    if (it < 0 && !c.rc && idx == 0) {
        H5Eclear2(H5E_DEFAULT);
        it = H5Aiterate2(src, H5_INDEX_NAME, H5_ITER_INC, &idx, copy_one, &c);
    }
    H5Eclear2(H5E_DEFAULT);
    if (it < 0 && !c.rc) {
        sl_diag_add(diag, file, 0, "%s: cannot list its attributes: expected readable "
                    "attributes", where);
        c.rc = -EINVAL;
    }
    return c.rc;
}

static herr_t copy_obj_attrs(hid_t src_root, const char *rel, const H5O_info_t *info, void *data)
{
    (void)info;
    attr_copy *t = data;
    hid_t s = H5Oopen(src_root, rel, sl_h5_guard_lapl());
    hid_t d = s >= 0 ? H5Oopen(t->dst, rel, H5P_DEFAULT) : -1;
    char where[512];
    snprintf(where, sizeof where, "/%s%s%s", t->where, strcmp(rel, ".") ? "/" : "",
             strcmp(rel, ".") ? rel : "");
    if (d < 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(t->diag, t->file, 0, "%s: cannot open it%s: expected a readable object",
                    where, s < 0 ? "" : " in the output");
        t->rc = -EINVAL;
    } else {
        t->rc = sl_h5_copy_attrs(s, d, where, t->file, t->diag);
    }
    if (d >= 0)
        H5Oclose(d);
    if (s >= 0)
        H5Oclose(s);
    return t->rc ? -1 : 0;
}

int sl_h5_copy_by_value(hid_t src, const char *name, hid_t dst, const char *dst_name,
                        hid_t lcpl, const char *file, sl_diag *diag)
{
    hid_t ocpypl = H5Pcreate(H5P_OBJECT_COPY);
    int ok = ocpypl >= 0 && H5Pset_copy_object(ocpypl, H5O_COPY_WITHOUT_ATTR_FLAG) >= 0 &&
             H5Ocopy(src, name, dst, dst_name, ocpypl, lcpl) >= 0;
    if (ocpypl >= 0)
        H5Pclose(ocpypl);
    if (!ok) {
        char msg[256];
        sl_h5_errmsg(msg, sizeof msg);
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(diag, file, 0, "cannot copy /%s: HDF5: %s", name, *msg ? msg : "no reason given");
        return -EIO;
    }
    attr_copy t = {H5Oopen(dst, dst_name, H5P_DEFAULT), name, file, diag, 0};
    hid_t top = H5Oopen(src, name, sl_h5_guard_lapl());
    if (t.dst < 0 || top < 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(diag, file, 0, "/%s: cannot open it: expected a readable object", name);
        t.rc = -EINVAL;
    } else if (H5Ovisit2(top, H5_INDEX_NAME, H5_ITER_INC, copy_obj_attrs, &t, H5O_INFO_BASIC) < 0 &&
               !t.rc) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(diag, file, 0, "/%s: cannot visit every object below it: expected readable "
                    "objects", name);
        t.rc = -EINVAL;
    }
    if (top >= 0)
        H5Oclose(top);
    if (t.dst >= 0)
        H5Oclose(t.dst);
    return t.rc;
}
