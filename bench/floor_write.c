/* The floor of writing a result file (convert, the writer at Close): a
 * standalone writer of exactly the objects a given file holds. It loads
 * TEMPLATE.h5 (one our writer made) into memory, every group with its
 * creation properties, every attribute and dataset with its type, shape and
 * values, hard links as links; then, timed, writes the same objects in the
 * same order into OUT.h5 with plain HDF5 calls (an in-memory file put on
 * disk at close, then fsync, as our writer places its files), with the
 * template's superblock version and the settings that keep the layout
 * (small fixed metadata cache, 64 KiB metadata blocks). Nothing is checked
 * or converted: what is left is HDF5's own cost for these objects.
 * bench/run-all.sh compares it with our writer by callgrind
 * (--toggle-collect=write_all: the write alone) and by wall time.
 * usage: floor_write TEMPLATE.h5 OUT.h5
 * Prints "floor_write_ms MS groups N datasets N attributes N". */
#include <fcntl.h>
#include "floor_util.h"
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct attr {
    char *name;
    hid_t ftype, mtype, space;
    int utf8;
    void *data;
} attr;

typedef struct node {
    char *name;
    int utf8;          /* link name encoding */
    int kind;          /* 0 group, 1 dataset, 2 hard link to `target` */
    char *target;      /* kind 2: absolute path of the object */
    hid_t gcpl;        /* group: its creation properties */
    hid_t ftype, mtype, space;
    void *data;
    size_t nattrs, nkids;
    attr *attrs;
    struct node *kids;
} node;

typedef struct loader {
    haddr_t *addr; /* objects loaded, and their paths */
    char **path;
    size_t n, cap;
    unsigned long groups, datasets, attributes;
    int failed;
} loader;

static hid_t native(hid_t t)
{
    H5T_class_t c = H5Tget_class(t);
    if (c == H5T_FLOAT)
        return H5Tcopy(H5T_NATIVE_DOUBLE);
    if (c == H5T_INTEGER)
        return H5Tcopy(H5Tget_size(t) == 1 ? H5T_NATIVE_UINT8 : H5T_NATIVE_INT64);
    return H5Tcopy(t);
}

static void *alloc_for(hid_t mtype, hid_t space)
{
    hssize_t n = H5Sget_simple_extent_npoints(space);
    return malloc((n > 0 ? (size_t)n : 1) * H5Tget_size(mtype));
}

static herr_t load_attr(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    node *nd = data;
    attr *a = &nd->attrs[nd->nattrs++];
    hid_t h = H5Aopen(obj, name, H5P_DEFAULT);
    a->name = strdup(name);
    a->utf8 = info->cset == H5T_CSET_UTF8;
    a->ftype = H5Aget_type(h);
    a->mtype = native(a->ftype);
    a->space = H5Aget_space(h);
    a->data = alloc_for(a->mtype, a->space);
    H5Aread(h, a->mtype, a->data);
    H5Aclose(h);
    return 0;
}

static void load_attrs(hid_t obj, node *nd)
{
    H5O_info_t oi;
    H5Oget_info2(obj, &oi, H5O_INFO_NUM_ATTRS);
    nd->attrs = calloc(oi.num_attrs ? oi.num_attrs : 1, sizeof *nd->attrs);
    hsize_t idx = 0;
    if (H5Aiterate2(obj, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, load_attr, nd) < 0) {
        H5Eclear2(H5E_DEFAULT);
        for (size_t i = 0; i < nd->nattrs; i++)
            free(nd->attrs[i].name); /* the rest leaks: a benchmark */
        nd->nattrs = 0;
        idx = 0;
        H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, load_attr, nd);
    }
}

typedef struct walkctx {
    loader *l;
    node *parent;
    const char *path;
} walkctx;

static void load_group(loader *l, hid_t g, node *nd, const char *path);

static herr_t load_link(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    walkctx *c = data;
    loader *l = c->l;
    node *nd = &c->parent->kids[c->parent->nkids++];
    nd->name = strdup(name);
    nd->utf8 = info->cset == H5T_CSET_UTF8;
    char *path = malloc(strlen(c->path) + strlen(name) + 2);
    sprintf(path, "%s/%s", c->path, name);
    for (size_t i = 0; i < l->n; i++)
        if (l->addr[i] == info->u.address) {
            nd->kind = 2;
            nd->target = strdup(l->path[i]);
            free(path);
            return 0;
        }
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (H5Iget_type(o) == H5I_GROUP) {
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 64;
            l->addr = realloc(l->addr, l->cap * sizeof *l->addr);
            l->path = realloc(l->path, l->cap * sizeof *l->path);
        }
        l->addr[l->n] = info->u.address;
        l->path[l->n++] = strdup(path);
        load_group(l, o, nd, path);
    } else {
        nd->kind = 1;
        l->datasets++;
        load_attrs(o, nd);
        l->attributes += nd->nattrs;
        nd->ftype = H5Dget_type(o);
        nd->mtype = native(nd->ftype);
        nd->space = H5Dget_space(o);
        nd->data = alloc_for(nd->mtype, nd->space);
        if (H5Sget_simple_extent_npoints(nd->space) > 0)
            H5Dread(o, nd->mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, nd->data);
    }
    H5Oclose(o);
    free(path);
    return 0;
}

/* A new group creation list with the group's settings (the list HDF5
 * returns carries the group's own storage addresses, not for reuse). */
static hid_t fresh_gcpl(hid_t g)
{
    hid_t old = H5Gget_create_plist(g), p = H5Pcreate(H5P_GROUP_CREATE);
    unsigned lcrt = 0, acrt = 0, lmax = 8, lmin = 6, amax = 8, amin = 6, ent = 4, len = 8;
    hbool_t times = 1;
    H5Pget_link_creation_order(old, &lcrt);
    H5Pget_attr_creation_order(old, &acrt);
    H5Pget_link_phase_change(old, &lmax, &lmin);
    H5Pget_attr_phase_change(old, &amax, &amin);
    H5Pget_est_link_info(old, &ent, &len);
    H5Pget_obj_track_times(old, &times);
    H5Pset_link_creation_order(p, lcrt);
    H5Pset_attr_creation_order(p, acrt);
    H5Pset_link_phase_change(p, lmax, lmin);
    H5Pset_attr_phase_change(p, amax, amin);
    H5Pset_est_link_info(p, ent, len);
    H5Pset_obj_track_times(p, times);
    H5Pclose(old);
    return p;
}

static void load_group(loader *l, hid_t g, node *nd, const char *path)
{
    nd->kind = 0;
    l->groups++;
    nd->gcpl = fresh_gcpl(g);
    load_attrs(g, nd);
    l->attributes += nd->nattrs;
    H5G_info_t gi;
    H5Gget_info(g, &gi);
    nd->kids = calloc(gi.nlinks ? gi.nlinks : 1, sizeof *nd->kids);
    walkctx c = {l, nd, path};
    hsize_t idx = 0;
    if (H5Literate(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, load_link, &c) < 0) {
        H5Eclear2(H5E_DEFAULT);
        nd->nkids = 0; /* creation order not tracked: name order */
        idx = 0;
        H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, load_link, &c);
    }
}

/* ---- the write, timed ---- */

typedef struct writer {
    hid_t file, acpl[2], lcpl[2];
    int failed;
} writer;

static void write_attrs(writer *w, hid_t obj, const node *nd)
{
    for (size_t i = 0; i < nd->nattrs; i++) {
        const attr *a = &nd->attrs[i];
        hid_t h = H5Acreate2(obj, a->name, a->ftype, a->space, w->acpl[a->utf8], H5P_DEFAULT);
        if (h < 0 || H5Awrite(h, a->mtype, a->data) < 0)
            w->failed = 1;
        H5Aclose(h);
    }
}

static void write_group(writer *w, hid_t g, const node *nd)
{
    write_attrs(w, g, nd);
    for (size_t i = 0; i < nd->nkids; i++) {
        const node *k = &nd->kids[i];
        if (k->kind == 2) {
            if (H5Lcreate_hard(w->file, k->target, g, k->name, w->lcpl[k->utf8], H5P_DEFAULT) < 0)
                w->failed = 1;
        } else if (k->kind == 0) {
            hid_t c = H5Gcreate2(g, k->name, w->lcpl[k->utf8], k->gcpl, H5P_DEFAULT);
            if (c < 0)
                w->failed = 1;
            else {
                write_group(w, c, k);
                H5Gclose(c);
            }
        } else {
            hid_t d = H5Dcreate2(g, k->name, k->ftype, k->space, w->lcpl[k->utf8],
                                 H5P_DEFAULT, H5P_DEFAULT);
            if (d < 0 || (H5Sget_simple_extent_npoints(k->space) > 0 &&
                          H5Dwrite(d, k->mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, k->data) < 0))
                w->failed = 1;
            write_attrs(w, d, k);
            H5Dclose(d);
        }
    }
}

static int no_meta_block;

/* Everything callgrind counts (--toggle-collect=write_all). */
__attribute__((noinline)) int write_all(const node *root, const char *out, H5F_libver_t low)
{
    writer w = {0};
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (H5Pset_fapl_core(fapl, 1u << 20, 1) < 0 || floor_small_cache(fapl) < 0 ||
        (!no_meta_block && H5Pset_meta_block_size(fapl, 64u << 10) < 0) ||
        H5Pset_libver_bounds(fapl, low, H5F_LIBVER_LATEST) < 0)
        return 1;
    for (int u = 0; u < 2; u++) {
        w.acpl[u] = H5Pcreate(H5P_ATTRIBUTE_CREATE);
        w.lcpl[u] = H5Pcreate(H5P_LINK_CREATE);
        H5Pset_char_encoding(w.acpl[u], u ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
        H5Pset_char_encoding(w.lcpl[u], u ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
    }
    w.file = H5Fcreate(out, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (w.file < 0)
        return 1;
    write_group(&w, w.file, root);
    if (H5Fclose(w.file) < 0)
        w.failed = 1;
    int fd = open(out, O_RDONLY);
    if (fd < 0 || fsync(fd) < 0)
        w.failed = 1;
    if (fd >= 0)
        close(fd);
    for (int u = 0; u < 2; u++) {
        H5Pclose(w.acpl[u]);
        H5Pclose(w.lcpl[u]);
    }
    H5Pclose(fapl);
    return w.failed;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: floor_write TEMPLATE.h5 OUT.h5\n");
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* iterations fall back: no stack dumps */
    if (getenv("FLOOR_NO_META_BLOCK"))
        no_meta_block = 1;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1u << 20, 0);
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    if (f < 0)
        return 1;
    H5F_info2_t fi;
    H5Fget_info2(f, &fi);
    /* superblock 0/1: the earliest formats; 2: 1.8's; 3: 1.10's */
    H5F_libver_t low = fi.super.version >= 3 ? H5F_LIBVER_V110
                       : fi.super.version == 2 ? H5F_LIBVER_V18 : H5F_LIBVER_EARLIEST;
    loader l = {0};
    node root = {0};
    hid_t g = H5Gopen2(f, "/", H5P_DEFAULT);
    load_group(&l, g, &root, "");
    H5Gclose(g);
    H5Fclose(f);
    H5Pclose(fapl);
    H5Eset_auto2(H5E_DEFAULT, (H5E_auto2_t)H5Eprint2, NULL);
    double t0 = floor_now_ms();
    int rc = write_all(&root, argv[2], low);
    double t1 = floor_now_ms();
    if (rc)
        return 1;
    printf("floor_write_ms %.1f groups %lu datasets %lu attributes %lu\n", t1 - t0, l.groups,
           l.datasets, l.attributes);
    return 0;
}
