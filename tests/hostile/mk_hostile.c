/* mk_hostile DIR TEMPLATE.h5: writes the crafted result files of the hostile
 * test (hostile.sh) into DIR, each a copy of TEMPLATE (a valid result file
 * with rank0/timing/regions/solve and rank0/likwid) changed with the HDF5
 * API:
 *   ext-fifo-timing.h5  rank0/timing an external link into DIR/fifo (a FIFO)
 *   ext-fifo-rank.h5    a root link rank9, external, into DIR/fifo
 *   soft-loop.h5        root soft links rank5 -> /rank6 -> /rank5
 *   soft-timing.h5      rank0/timing a soft link to a copy of the real group
 *   huge-dims.h5        rank0/timing/regions/solve's datasets 2^24 elements
 *                       each, never written (no storage: a small file)
 *   huge-deflate.h5     the same, written as deflated zeros (chunked)
 *   many-attrs.h5       200 string attributes on rank0/likwid (LIKWID_*
 *                       variables: valid) and 200 on rank0
 *   huge-strarray.h5    one 200000-string attribute on rank0 (valid: the
 *                       reader does not need it)
 *   int64-max.h5, int64-min.h5, int64-mixed.h5
 *                       every int64 dataset and attribute INT64_MAX,
 *                       INT64_MIN, or alternating
 *   nonfinite.h5        every float64 dataset NaN, +Inf, -Inf, -0, DBL_MAX
 *   huge-host.h5        rank0's hostname a string of 2 MiB (valid)
 *   timing-dataset.h5   rank0/timing a dataset (rank0/regions gone), and
 *                       rank1 a committed datatype
 * Exit 0, or 1 with a message. */
#include <float.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK(x)                                                        \
    do {                                                                \
        if ((x) < 0) {                                                  \
            fprintf(stderr, "mk_hostile: %s:%d: %s failed\n", __FILE__, \
                    __LINE__, #x);                                      \
            exit(1);                                                    \
        }                                                               \
    } while (0)

static const char *dir, *tmpl;

static void copy_file(const char *to)
{
    FILE *in = fopen(tmpl, "rb"), *out = fopen(to, "wb");
    if (!in || !out) {
        perror(to);
        exit(1);
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) {
            perror(to);
            exit(1);
        }
    fclose(in);
    if (fclose(out)) {
        perror(to);
        exit(1);
    }
}

static hid_t open_copy(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    copy_file(path);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f);
    return f;
}

static void ext_fifo(const char *name, const char *where, const char *link)
{
    hid_t f = open_copy(name);
    char fifo[4096];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    hid_t g = H5Gopen2(f, where, H5P_DEFAULT);
    CHECK(g);
    if (H5Lexists(g, link, H5P_DEFAULT) > 0)
        CHECK(H5Ldelete(g, link, H5P_DEFAULT));
    CHECK(H5Lcreate_external(fifo, "/x", g, link, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(g);
    H5Fclose(f);
}

static void soft_links(void)
{
    hid_t f = open_copy("soft-loop.h5");
    CHECK(H5Lcreate_soft("/rank6", f, "rank5", H5P_DEFAULT, H5P_DEFAULT));
    CHECK(H5Lcreate_soft("/rank5", f, "rank6", H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(f);
    f = open_copy("soft-timing.h5");
    CHECK(H5Lmove(f, "rank0/timing", f, "elsewhere", H5P_DEFAULT, H5P_DEFAULT));
    CHECK(H5Lcreate_soft("/elsewhere", f, "rank0/timing", H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(f);
}

static const char *const timing_sets[] = {"threads",      "call_counts", "total_ns",
                                          "min_ns",       "max_ns",      "call_threads",
                                          "start_times",  "end_times"};

static void huge(const char *name, int deflate)
{
    hid_t f = open_copy(name);
    hid_t g = H5Gopen2(f, "rank0/timing/regions/solve", H5P_DEFAULT);
    CHECK(g);
    hsize_t n = (hsize_t)1 << 24, chunk = (hsize_t)1 << 20;
    hid_t s = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(s);
    if (deflate) {
        CHECK(H5Pset_chunk(dcpl, 1, &chunk));
        CHECK(H5Pset_deflate(dcpl, 1));
    } else
        CHECK(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_LATE));
    int64_t *zeros = deflate ? calloc(n, sizeof *zeros) : NULL;
    for (size_t i = 0; i < sizeof timing_sets / sizeof timing_sets[0]; i++) {
        CHECK(H5Ldelete(g, timing_sets[i], H5P_DEFAULT));
        hid_t d = H5Dcreate2(g, timing_sets[i], H5T_STD_I64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(d);
        if (zeros)
            CHECK(H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros));
        H5Dclose(d);
    }
    free(zeros);
    H5Pclose(dcpl);
    H5Sclose(s);
    H5Gclose(g);
    H5Fclose(f);
}

static void str_attrs(hid_t obj, const char *prefix, int count)
{
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR);
    CHECK(H5Tset_size(t, H5T_VARIABLE));
    for (int i = 0; i < count; i++) {
        char name[64], value[64];
        snprintf(name, sizeof name, "%s%03d", prefix, i);
        snprintf(value, sizeof value, "value of attribute %d", i);
        const char *v = value;
        hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(a);
        CHECK(H5Awrite(a, t, &v));
        H5Aclose(a);
    }
    H5Sclose(s);
    H5Tclose(t);
}

static void many_attrs(void)
{
    hid_t f = open_copy("many-attrs.h5");
    hid_t g = H5Gopen2(f, "rank0/likwid", H5P_DEFAULT), r = H5Gopen2(f, "rank0", H5P_DEFAULT);
    CHECK(g);
    CHECK(r);
    str_attrs(g, "LIKWID_HOSTILE_", 200);
    str_attrs(r, "note_", 200);
    H5Gclose(g);
    H5Gclose(r);
    H5Fclose(f);

    f = open_copy("huge-strarray.h5");
    r = H5Gopen2(f, "rank0", H5P_DEFAULT);
    CHECK(r);
    hsize_t n = 200000;
    char **v = malloc(n * sizeof *v);
    for (hsize_t i = 0; i < n; i++) {
        v[i] = malloc(32);
        snprintf(v[i], 32, "string %llu", (unsigned long long)i);
    }
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate_simple(1, &n, NULL);
    CHECK(H5Tset_size(t, H5T_VARIABLE));
    hid_t a = H5Acreate2(r, "notes", t, s, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Awrite(a, t, v));
    H5Aclose(a);
    for (hsize_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    H5Sclose(s);
    H5Tclose(t);
    H5Gclose(r);
    H5Fclose(f);
}

/* Rewrites every dataset and attribute of one class with a pattern. */
typedef struct pattern {
    int mode; /* 0 max, 1 min, 2 alternating, 3 non-finite */
} pattern;

static int64_t int_value(int mode, size_t i)
{
    if (mode == 0)
        return INT64_MAX;
    if (mode == 1)
        return INT64_MIN;
    return i % 2 ? INT64_MIN : INT64_MAX;
}

static double float_value(size_t i)
{
    const double v[] = {NAN, INFINITY, -INFINITY, -0.0, DBL_MAX, -DBL_MAX};
    return v[i % 6];
}

static void rewrite(hid_t obj, hid_t space, hid_t type, int is_attr, int mode)
{
    H5T_class_t c = H5Tget_class(type);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    if (n <= 0 || (mode == 3 ? c != H5T_FLOAT : c != H5T_INTEGER) ||
        (c == H5T_INTEGER && H5Tget_size(type) != 8))
        return;
    if (mode == 3) {
        double *v = malloc((size_t)n * sizeof *v);
        for (hssize_t i = 0; i < n; i++)
            v[i] = float_value((size_t)i);
        CHECK(is_attr ? H5Awrite(obj, H5T_NATIVE_DOUBLE, v)
                      : H5Dwrite(obj, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
        free(v);
    } else {
        int64_t *v = malloc((size_t)n * sizeof *v);
        for (hssize_t i = 0; i < n; i++)
            v[i] = int_value(mode, (size_t)i);
        CHECK(is_attr ? H5Awrite(obj, H5T_NATIVE_INT64, v)
                      : H5Dwrite(obj, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
        free(v);
    }
}

static herr_t each_attr(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    const pattern *p = data;
    /* the format's own counts stay valid: only values are extreme */
    if (!strcmp(name, "num_regions") || !strcmp(name, "format_version") ||
        !strcmp(name, "group_id"))
        return 0;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t s = H5Aget_space(a), t = H5Aget_type(a);
    rewrite(a, s, t, 1, p->mode);
    H5Tclose(t);
    H5Sclose(s);
    H5Aclose(a);
    return 0;
}

static herr_t each_obj(hid_t f, const char *name, const H5O_info_t *info, void *data)
{
    const pattern *p = data;
    hid_t o = H5Oopen(f, name, H5P_DEFAULT);
    CHECK(o);
    if (info->type == H5O_TYPE_DATASET && (p->mode == 3 || strstr(name, "cpus") == NULL) &&
        strstr(name, "/threads") == NULL && strstr(name, "call_threads") == NULL) {
        hid_t s = H5Dget_space(o), t = H5Dget_type(o);
        rewrite(o, s, t, 0, p->mode);
        H5Tclose(t);
        H5Sclose(s);
    }
    if (p->mode != 3) {
        hsize_t idx = 0;
        CHECK(H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, &idx, each_attr, data));
    }
    H5Oclose(o);
    return 0;
}

static void extremes(const char *name, int mode)
{
    hid_t f = open_copy(name);
    pattern p = {mode};
    CHECK(H5Ovisit(f, H5_INDEX_NAME, H5_ITER_INC, each_obj, &p));
    H5Fclose(f);
}

static void huge_host(void)
{
    hid_t f = open_copy("huge-host.h5");
    hid_t r = H5Gopen2(f, "rank0", H5P_DEFAULT);
    CHECK(r);
    size_t n = (size_t)2 << 20;
    char *v = malloc(n + 1);
    memset(v, 'h', n);
    v[n] = '\0';
    if (H5Aexists(r, "hostname") > 0)
        CHECK(H5Adelete(r, "hostname"));
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR);
    CHECK(H5Tset_size(t, H5T_VARIABLE));
    CHECK(H5Tset_cset(t, H5T_CSET_UTF8));
    hid_t a = H5Acreate2(r, "hostname", t, s, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Awrite(a, t, &v));
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    free(v);
    H5Gclose(r);
    H5Fclose(f);
}

static void timing_dataset(void)
{
    hid_t f = open_copy("timing-dataset.h5");
    CHECK(H5Ldelete(f, "rank0/timing", H5P_DEFAULT));
    if (H5Lexists(f, "rank0/regions", H5P_DEFAULT) > 0)
        CHECK(H5Ldelete(f, "rank0/regions", H5P_DEFAULT));
    hsize_t n = 3;
    int64_t v[3] = {1, 2, 3};
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, "rank0/timing", H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    CHECK(d);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    H5Dclose(d);
    H5Sclose(s);
    hid_t t = H5Tcopy(H5T_NATIVE_DOUBLE);
    CHECK(H5Tcommit2(f, "rank1", t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Tclose(t);
    H5Fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mk_hostile DIR TEMPLATE.h5\n");
        return 1;
    }
    dir = argv[1];
    tmpl = argv[2];
    char fifo[4096];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    unlink(fifo);
    if (mkfifo(fifo, 0600)) {
        perror(fifo);
        return 1;
    }
    ext_fifo("ext-fifo-timing.h5", "rank0", "timing");
    ext_fifo("ext-fifo-rank.h5", "/", "rank9");
    soft_links();
    huge("huge-dims.h5", 0);
    huge("huge-deflate.h5", 1);
    many_attrs();
    extremes("int64-max.h5", 0);
    extremes("int64-min.h5", 1);
    extremes("int64-mixed.h5", 2);
    extremes("nonfinite.h5", 3);
    huge_host();
    timing_dataset();
    return 0;
}
