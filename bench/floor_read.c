/* The floor of reading a result file (show, export, diff, plot): a plain
 * reader that walks every group with H5Literate and reads every attribute
 * and dataset once into one preallocated buffer, checking nothing and
 * keeping nothing, with the readers' own file-access settings (the file
 * read whole into memory, a fixed 128 KiB metadata cache, evict on close;
 * FLOOR_DEFAULTS=1: HDF5's defaults instead). bench/bench_floors.sh times
 * it interleaved with `scope-likwid show` of the same file.
 * usage: floor_read FILE.h5
 * Prints "floor_read_ms MS datasets N attributes N values N". */
#include "floor_util.h"
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct walk {
    unsigned char *buf;
    size_t cap;
    unsigned long datasets, attributes, values;
    int failed;
    haddr_t *seen; /* groups read (rank<R>/regions is timing/regions itself) */
    size_t nseen, capseen;
} walk;

/* 1 when the object at addr was read already (a second hard link to it);
 * an open-addressing set of addresses + 1 (0: empty). */
static int seen(walk *w, haddr_t addr)
{
    if (2 * (w->nseen + 1) > w->capseen) {
        size_t cap = w->capseen ? w->capseen * 2 : 4096;
        haddr_t *v = calloc(cap, sizeof *v);
        if (!v) {
            w->failed = 1;
            return 1;
        }
        for (size_t i = 0; i < w->capseen; i++)
            for (size_t h = (size_t)(w->seen[i] * 0x9E3779B97F4A7C15ull) & (cap - 1);
                 w->seen[i]; h = (h + 1) & (cap - 1))
                if (!v[h]) {
                    v[h] = w->seen[i];
                    break;
                }
        free(w->seen);
        w->seen = v;
        w->capseen = cap;
    }
    haddr_t key = addr + 1;
    size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull) & (w->capseen - 1);
    for (; w->seen[h]; h = (h + 1) & (w->capseen - 1))
        if (w->seen[h] == key)
            return 1;
    w->seen[h] = key;
    w->nseen++;
    return 0;
}

static void *room(walk *w, size_t bytes)
{
    if (bytes > w->cap) {
        free(w->buf);
        w->cap = bytes * 2;
        w->buf = malloc(w->cap);
        if (!w->buf) {
            w->cap = 0;
            w->failed = 1;
        }
    }
    return w->buf;
}

/* Reads one attribute or dataset of type t and space s by read(). */
static void read_one(walk *w, hid_t t, hid_t s, herr_t (*rd)(hid_t, hid_t, void *), hid_t obj)
{
    hssize_t n = H5Sget_simple_extent_npoints(s);
    if (n < 0) {
        w->failed = 1;
        return;
    }
    w->values += (unsigned long)n;
    if (n == 0)
        return;
    H5T_class_t c = H5Tget_class(t);
    hid_t m = c == H5T_FLOAT ? H5Tcopy(H5T_NATIVE_DOUBLE)
              : c == H5T_INTEGER && H5Tget_size(t) == 1 ? H5Tcopy(H5T_NATIVE_UINT8)
              : c == H5T_INTEGER ? H5Tcopy(H5T_NATIVE_INT64) : H5Tcopy(t);
    int vlen = c == H5T_STRING && H5Tis_variable_str(t) > 0;
    void *p = room(w, (size_t)n * H5Tget_size(m));
    if (!p || rd(obj, m, p) < 0)
        w->failed = 1;
    else if (vlen)
        for (hssize_t i = 0; i < n; i++)
            H5free_memory(((char **)p)[i]);
    H5Tclose(m);
}

static herr_t attr_read(hid_t obj, hid_t mtype, void *buf)
{
    return H5Aread(obj, mtype, buf);
}

static herr_t data_read(hid_t obj, hid_t mtype, void *buf)
{
    return H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
}

static herr_t one_attr(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    walk *w = data;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    read_one(w, t, s, attr_read, a);
    H5Sclose(s);
    H5Tclose(t);
    H5Aclose(a);
    w->attributes++;
    return 0;
}

static void attrs(walk *w, hid_t obj)
{
    hsize_t idx = 0;
    H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, one_attr, w);
}

static herr_t one_link(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    walk *w = data;
    if (info->type == H5L_TYPE_HARD && seen(w, info->u.address))
        return 0;
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0) {
        w->failed = 1;
        return 0;
    }
    attrs(w, o);
    if (H5Iget_type(o) == H5I_DATASET) {
        hid_t t = H5Dget_type(o), s = H5Dget_space(o);
        read_one(w, t, s, data_read, o);
        H5Sclose(s);
        H5Tclose(t);
        w->datasets++;
    } else {
        hsize_t idx = 0;
        H5Literate(o, H5_INDEX_NAME, H5_ITER_INC, &idx, one_link, w);
    }
    H5Oclose(o);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: floor_read FILE.h5\n");
        return 2;
    }
    double t0 = floor_now_ms();
    walk w = {0};
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (!getenv("FLOOR_DEFAULTS")) {
        floor_small_cache(fapl);
        H5Pset_fapl_core(fapl, 1u << 20, 0);
        H5Pset_evict_on_close(fapl, 1);
    }
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (f < 0)
        return 1;
    attrs(&w, f);
    hsize_t idx = 0;
    H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, &idx, one_link, &w);
    H5Fclose(f);
    free(w.buf);
    free(w.seen);
    if (w.failed)
        return 1;
    printf("floor_read_ms %.1f datasets %lu attributes %lu values %lu\n", floor_now_ms() - t0,
           w.datasets, w.attributes, w.values);
    return 0;
}
