/* Reads a result file (docs/FORMAT.md) back into sl_run values. Everything is
 * checked; a file that is not ours gives diag lines and -EINVAL. */
#include "h5read.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5_guard.h"
#include "h5_util.h"

#define ANY ((size_t)-1)

void sl_runset_free(sl_runset *set)
{
    for (size_t i = 0; i < set->nruns; i++)
        sl_run_free(&set->runs[i]);
    free(set->runs);
    set->runs = NULL;
    set->nruns = 0;
}

static hid_t open_group(sl_h5r *r, hid_t parent, const char *path, const char *name)
{
    hid_t g = -1;
    if (H5Lexists(parent, name, H5P_DEFAULT) > 0) {
        g = H5Oopen(parent, name, sl_h5_guard_lapl());
        if (g >= 0 && H5Iget_type(g) != H5I_GROUP) {
            H5Oclose(g);
            g = -1;
        }
    }
    if (g < 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(r->diag, r->file, 0, "%s/%s: group missing: expected a group", path, name);
    }
    return g;
}

static char *join(const char *path, const char *name)
{
    char *s = NULL;
    return asprintf(&s, "%s/%s", path, name) < 0 ? NULL : s;
}

/* The exact tag: tag_bytes when present, else attr tag. */
static int read_tag(sl_h5r *r, hid_t g, const char *path, char **tag, size_t *len)
{
    int rc = sl_h5r_u8v(r, g, path, "tag_bytes", tag, len);
    if (rc || *tag)
        return rc;
    char *t = NULL;
    rc = sl_h5r_str(r, g, path, "tag", &t);
    if (rc)
        return rc;
    *tag = t;
    *len = strlen(t);
    return 0;
}

static int read_i64_opt(sl_h5r *r, hid_t g, const char *path, const char *name, int64_t *v)
{
    *v = 0;
    if (H5Aexists(g, name) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    return sl_h5r_i64(r, g, path, name, v);
}

static int timing_region(sl_h5r *r, hid_t g, const char *path, sl_timing *t)
{
    char *tag = NULL;
    size_t len = 0, nt = ANY, nc = ANY;
    int rc = read_tag(r, g, path, &tag, &len);
    if (!rc)
        rc = sl_h5r_shape(r, g, path, "threads", 1, &nt, NULL);
    if (!rc)
        rc = sl_h5r_shape(r, g, path, "call_threads", 1, &nc, NULL);
    sl_timing_region *tr = NULL;
    if (!rc) {
        tr = sl_timing_add(t, tag, len, nt, nc);
        rc = tr ? 0 : -ENOMEM;
    }
    free(tag);
    if (rc)
        return rc;
    rc = sl_h5r_i64(r, g, path, "dropped_calls", &tr->dropped_calls);
    if (!rc)
        rc = sl_h5r_i64(r, g, path, "open_at_close", &tr->open_at_close);
    if (!rc)
        rc = read_i64_opt(r, g, path, "unmatched_stops", &tr->unmatched_stops);
    if (!rc)
        rc = read_i64_opt(r, g, path, "nested_starts", &tr->nested_starts);
    const struct {
        const char *name;
        int64_t *v;
        size_t n;
    } d[] = {
        {"threads", tr->threads, nt},
        {"call_counts", tr->call_counts, nt},
        {"total_ns", tr->total_ns, nt},
        {"min_ns", tr->min_ns, nt},
        {"max_ns", tr->max_ns, nt},
        {"call_threads", tr->call_threads, nc},
        {"start_times", tr->start_times, nc},
        {"end_times", tr->end_times, nc},
    };
    for (size_t i = 0; !rc && i < sizeof d / sizeof d[0]; i++)
        rc = sl_h5r_data(r, g, path, d[i].name, 0, 1, d[i].n, 0, d[i].v);
    return rc;
}

typedef int (*region_fn)(sl_h5r *r, hid_t g, const char *path, void *arg);

/* Calls fn for every subgroup of path/regions, in file order. */
static int each_region(sl_h5r *r, hid_t parent, const char *path, region_fn fn, void *arg,
                       size_t *count)
{
    char *rpath = join(path, "regions");
    if (!rpath)
        return -ENOMEM;
    hid_t regs = open_group(r, parent, path, "regions");
    char **names = NULL;
    size_t n = 0;
    int rc = regs < 0 ? -EINVAL : sl_h5r_links(r, regs, rpath, &names, &n);
    for (size_t i = 0; !rc && i < n; i++) {
        hid_t g = open_group(r, regs, rpath, names[i]);
        char *gpath = join(rpath, names[i]);
        rc = g < 0 ? -EINVAL : gpath ? fn(r, g, gpath, arg) : -ENOMEM;
        free(gpath);
        if (g >= 0)
            H5Oclose(g);
    }
    if (count)
        *count = n;
    sl_h5r_free_names(names, n);
    if (regs >= 0)
        H5Oclose(regs);
    free(rpath);
    return rc;
}

static int timing_cb(sl_h5r *r, hid_t g, const char *path, void *arg)
{
    return timing_region(r, g, path, arg);
}

static int read_timing(sl_h5r *r, hid_t rank_g, const char *path, sl_timing *t)
{
    char *tpath = join(path, "timing");
    if (!tpath)
        return -ENOMEM;
    hid_t g = open_group(r, rank_g, path, "timing");
    int rc = g < 0 ? -EINVAL : sl_h5r_str(r, g, tpath, "clock", &t->clock);
    if (!rc)
        rc = sl_h5r_i64(r, g, tpath, "origin_unix_ns", &t->origin_unix_ns);
    if (!rc)
        rc = each_region(r, g, tpath, timing_cb, t, NULL);
    if (g >= 0)
        H5Oclose(g);
    free(tpath);
    return rc;
}

static int read_source(sl_h5r *r, hid_t g, const char *path, sl_source *src)
{
    char *s = NULL;
    int rc = sl_h5r_str(r, g, path, "source", &s);
    if (!rc && (sl_source_parse(s, strlen(s), src) < 0 || *src == SL_SOURCE_NONE)) {
        sl_diag_add(r->diag, r->file, 0,
                    "%s/source: unknown source \"%s\": expected full_api, marker_file or marker_api",
                    path, s);
        rc = -EINVAL;
    }
    free(s);
    return rc;
}

/* Without names the writer stores event_<e> and "" counters (FORMAT.md). */
static int names_given(char **events, char **counters, size_t e, sl_source src)
{
    if (e == 0)
        return src == SL_SOURCE_FULL_API;
    char buf[32];
    for (size_t i = 0; i < e; i++) {
        snprintf(buf, sizeof buf, "event_%zu", i);
        if (*counters[i] || strcmp(events[i], buf) != 0)
            return 1;
    }
    return 0;
}

static int copy_names(char **dst, char **src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sl_set_string(&dst[i], src[i]) < 0)
            return -ENOMEM;
    return 0;
}

static int likwid_region(sl_h5r *r, hid_t g, const char *path, void *arg)
{
    sl_likwid *lw = arg;
    char *tag = NULL, *group_name = NULL;
    char **ev = NULL, **ctr = NULL, **met = NULL, **lab = NULL;
    size_t len = 0, ne = 0, nc = 0, nm = 0, nl = 0, nt = ANY;
    int64_t gid = 0;
    sl_source src = SL_SOURCE_NONE;
    int rc = read_tag(r, g, path, &tag, &len);
    if (!rc)
        rc = sl_h5r_str(r, g, path, "group_name", &group_name);
    if (!rc)
        rc = read_source(r, g, path, &src);
    if (!rc)
        rc = sl_h5r_i64(r, g, path, "group_id", &gid);
    if (!rc)
        rc = sl_h5r_strv(r, g, path, "event_names", ANY, &ev, &ne);
    if (!rc)
        rc = sl_h5r_strv(r, g, path, "counter_names", ne, &ctr, &nc);
    if (!rc)
        rc = sl_h5r_strv(r, g, path, "event_labels", ne, &lab, &nl);
    if (!rc)
        rc = sl_h5r_strv(r, g, path, "metric_names", ANY, &met, &nm);
    if (!rc)
        rc = sl_h5r_shape(r, g, path, "cpus", 1, &nt, NULL);
    sl_region *reg = NULL;
    int has_names = 0;
    if (!rc) {
        has_names = names_given(ev, ctr, ne, src);
        reg = sl_likwid_add(lw, tag, len, gid, group_name, src, nt, ne, nm, has_names);
        rc = reg ? 0 : -ENOMEM;
    }
    if (!rc && has_names)
        rc = copy_names(reg->event_names, ev, ne);
    if (!rc && has_names)
        rc = copy_names(reg->counter_names, ctr, ne);
    if (!rc)
        rc = copy_names(reg->metric_names, met, nm);
    if (!rc)
        rc = sl_h5r_data(r, g, path, "cpus", 0, 1, nt, 0, reg->cpus);
    if (!rc)
        rc = sl_h5r_data(r, g, path, "times", 1, 1, nt, 0, reg->times);
    if (!rc)
        rc = sl_h5r_data(r, g, path, "call_counts", 0, 1, nt, 0, reg->call_counts);
    if (!rc)
        rc = sl_h5r_data(r, g, path, "events", 1, 2, ne, nt, reg->events);
    if (!rc)
        rc = sl_h5r_data(r, g, path, "metrics", 1, 2, nm, nt, reg->metrics);
    free(tag);
    free(group_name);
    sl_h5r_free_names(ev, ne);
    sl_h5r_free_names(ctr, nc);
    sl_h5r_free_names(lab, nl);
    sl_h5r_free_names(met, nm);
    return rc;
}

typedef struct env_ctx {
    sl_h5r *r;
    sl_run *run;
    const char *path;
    int rc;
} env_ctx;

/* Every string attribute of likwid/ but source is a LIKWID_* variable. */
static herr_t env_attr(hid_t g, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    env_ctx *c = data;
    if (strcmp(name, "source") == 0 || strcmp(name, "num_regions") == 0)
        return 0;
    hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    int is_str = t >= 0 && H5Tget_class(t) == H5T_STRING;
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    if (!is_str)
        return 0;
    char *v = NULL;
    c->rc = sl_h5r_str(c->r, g, c->path, name, &v);
    if (!c->rc)
        c->rc = sl_run_add_env(c->run, name, v);
    free(v);
    return c->rc ? -1 : 0;
}

static int read_env(sl_h5r *r, hid_t g, const char *path, sl_run *run)
{
    env_ctx c = {r, run, path, 0};
    hsize_t idx = 0;
    herr_t rc = H5Aiterate2(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, env_attr, &c);
    if (rc < 0 && !c.rc && run->nenv == 0) {
        /* creation order not tracked: name order */
        H5Eclear2(H5E_DEFAULT);
        idx = 0;
        rc = H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, env_attr, &c);
    }
    if (c.rc)
        return c.rc;
    if (rc < 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(r->diag, r->file, 0, "%s: cannot list attributes: expected readable attributes",
                    path);
        return -EINVAL;
    }
    return 0;
}

static int read_likwid(sl_h5r *r, hid_t rank_g, const char *path, sl_run *run)
{
    if (H5Lexists(rank_g, "likwid", H5P_DEFAULT) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0; /* no counter data: allowed */
    }
    char *lpath = join(path, "likwid");
    if (!lpath)
        return -ENOMEM;
    hid_t g = open_group(r, rank_g, path, "likwid");
    int64_t num = 0;
    size_t count = 0;
    int rc = g < 0 ? -EINVAL : sl_h5r_i64(r, g, lpath, "num_regions", &num);
    if (!rc)
        rc = read_source(r, g, lpath, &run->likwid.source);
    if (!rc)
        rc = read_env(r, g, lpath, run);
    if (!rc)
        rc = each_region(r, g, lpath, likwid_region, &run->likwid, &count);
    if (!rc && (num < 0 || (uint64_t)num != count)) {
        sl_diag_add(r->diag, r->file, 0, "%s/num_regions: is %" PRId64 ": expected %zu, the regions present",
                    lpath, num, count);
        rc = -EINVAL;
    }
    if (g >= 0)
        H5Oclose(g);
    free(lpath);
    return rc;
}

static int read_run(sl_h5r *r, hid_t f, const char *name, int64_t rank, sl_run *run)
{
    int rc = sl_run_init(run);
    if (rc)
        return rc;
    run->rank = rank;
    char *path = join("", name);
    if (!path)
        return -ENOMEM;
    hid_t g = open_group(r, f, "", name);
    rc = g < 0 ? -EINVAL : 0;
    if (!rc)
        rc = sl_h5r_str(r, g, path, "hostname", &run->hostname);
    if (!rc)
        rc = sl_h5r_str(r, g, path, "executable", &run->executable);
    if (!rc)
        rc = sl_h5r_str(r, g, path, "command_line", &run->command_line);
    if (!rc)
        rc = sl_h5r_i64(r, g, path, "pid", &run->pid);
    if (!rc)
        rc = sl_h5r_i64(r, g, path, "mpi_rank", &run->mpi_rank);
    if (!rc)
        rc = sl_h5r_str(r, g, path, "likwid_status", &run->likwid_status);
    if (!rc)
        rc = read_timing(r, g, path, &run->timing);
    if (!rc)
        rc = read_likwid(r, g, path, run);
    if (g >= 0)
        H5Oclose(g);
    free(path);
    return rc;
}

/* "rank<R>" with R a decimal number without leading zeros, or
 * "rank<R>.<k>" (k >= 1, same form): the k-th further rank-R group that
 * `scope-likwid merge` keeps when inputs clash (docs/FORMAT.md). */
static int rank_of(const char *name, int64_t *rank, int64_t *copy)
{
    if (strncmp(name, "rank", 4) != 0 || name[4] < '0' || name[4] > '9' ||
        (name[4] == '0' && name[5] >= '0' && name[5] <= '9'))
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(name + 4, &end, 10);
    long long k = 0;
    if (!errno && *end == '.' && end[1] >= '1' && end[1] <= '9')
        k = strtoll(end + 1, &end, 10);
    if (errno || *end)
        return 0;
    *rank = v;
    *copy = k;
    return 1;
}

typedef struct rank_ref {
    int64_t rank;
    int64_t copy;
    const char *name;
} rank_ref;

static int cmp_rank(const void *a, const void *b)
{
    const rank_ref *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->copy > y->copy) - (x->copy < y->copy);
}

static int check_format(sl_h5r *r, hid_t f)
{
    char *fmt = NULL;
    int64_t version = 0;
    int rc = sl_h5r_str(r, f, "", "format", &fmt);
    if (!rc && strcmp(fmt, SL_H5_FORMAT) != 0) {
        sl_diag_add(r->diag, r->file, 0, "/format: is \"%s\": expected \"" SL_H5_FORMAT "\"", fmt);
        rc = -EINVAL;
    }
    if (!rc)
        rc = sl_h5r_i64(r, f, "", "format_version", &version);
    if (!rc && version != SL_H5_FORMAT_VERSION) {
        sl_diag_add(r->diag, r->file, 0, "/format_version: is %" PRId64 ": expected %d", version,
                    SL_H5_FORMAT_VERSION);
        rc = -EINVAL;
    }
    free(fmt);
    return rc;
}

static int read_file(sl_h5r *r, hid_t f, sl_runset *out)
{
    int rc = check_format(r, f);
    char **names = NULL;
    size_t n = 0;
    if (!rc)
        rc = sl_h5r_links(r, f, "", &names, &n);
    rank_ref *refs = rc ? NULL : calloc(n ? n : 1, sizeof *refs);
    if (!rc && !refs)
        rc = -ENOMEM;
    size_t nr = 0;
    for (size_t i = 0; !rc && i < n; i++)
        if (rank_of(names[i], &refs[nr].rank, &refs[nr].copy))
            refs[nr++].name = names[i];
    if (!rc) {
        qsort(refs, nr, sizeof *refs, cmp_rank);
        out->runs = calloc(nr ? nr : 1, sizeof *out->runs);
        rc = out->runs ? 0 : -ENOMEM;
    }
    for (size_t i = 0; !rc && i < nr; i++) {
        rc = read_run(r, f, refs[i].name, refs[i].rank, &out->runs[i]);
        out->nruns = i + 1; /* freed by the caller on failure, even half read */
    }
    free(refs);
    sl_h5r_free_names(names, n);
    return rc;
}

int sl_h5_read(const char *path, sl_runset *out, sl_diag *diag)
{
    memset(out, 0, sizeof *out);
    sl_h5_quiet();
    sl_h5r r = {path, diag};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        sl_diag_add(diag, path, 0, "cannot open: %s", strerror(err));
        return -err;
    }
    close(fd);
    if (H5Fis_hdf5(path) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(diag, path, 0, "not an HDF5 file: expected a scope-likwid result file");
        return -EINVAL;
    }
    int rc = sl_h5_guard_file(path, diag);
    hid_t f = rc ? -1 : H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (!rc && f < 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(diag, path, 0, "cannot open as HDF5: expected a scope-likwid result file");
        rc = -EINVAL;
    }
    if (!rc)
        rc = read_file(&r, f, out);
    if (f >= 0)
        H5Fclose(f);
    sl_h5_guard_done();
    if (rc)
        sl_runset_free(out);
    return rc;
}

int sl_h5_read_image(const void *buf, size_t len, const char *name, sl_runset *out,
                     sl_diag *diag)
{
    memset(out, 0, sizeof *out);
    sl_h5_quiet();
    sl_h5r r = {name, diag};
    int rc = sl_h5_guard_image(buf, len, name, diag);
    hid_t fapl = rc ? -1 : H5Pcreate(H5P_FILE_ACCESS);
    if (!rc && (fapl < 0 || H5Pset_fapl_core(fapl, 1u << 20, 0) < 0 ||
                H5Pset_file_image(fapl, (void *)buf, len) < 0))
        rc = -EIO;
    hid_t f = rc ? -1 : H5Fopen(name, H5F_ACC_RDONLY, fapl);
    if (!rc && f < 0) {
        sl_diag_add(diag, name, 0, "cannot open as HDF5: expected a scope-likwid result file");
        rc = -EINVAL;
    }
    H5Eclear2(H5E_DEFAULT);
    if (!rc)
        rc = read_file(&r, f, out);
    if (f >= 0)
        H5Fclose(f);
    if (fapl >= 0)
        H5Pclose(fapl);
    sl_h5_guard_done();
    if (rc)
        sl_runset_free(out);
    return rc;
}
