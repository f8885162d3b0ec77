/* Reads one rank group of a result file (docs/FORMAT.md) back into an sl_run:
 * its attributes, timing and LIKWID regions. Everything is checked; what is
 * not ours gives diag lines and -EINVAL. The file as a whole: h5read_file.c. */
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

static hid_t open_group(sl_h5r *r, hid_t parent, const char *path, const char *name)
{
    /* opened without a look-up first (one per region cost 1% of show);
     * a missing link only makes the open fail */
    hid_t g = H5Oopen(parent, name, sl_h5_guard_lapl());
    if (g >= 0 && H5Iget_type(g) != H5I_GROUP) {
        H5Oclose(g);
        g = -1;
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
static int read_tag(sl_h5r *r, hid_t g, const char *path, const sl_h5_field *f_tag,
                    const sl_h5_field *f_bytes, char **tag, size_t *len)
{
    int rc = sl_h5r_u8v(r, g, path, f_bytes, tag, len);
    if (rc || *tag)
        return rc;
    char *t = NULL;
    rc = sl_h5r_str(r, g, path, f_tag, &t);
    if (rc)
        return rc;
    *tag = t;
    *len = strlen(t);
    return 0;
}

static int timing_region(sl_h5r *r, hid_t g, const char *path, sl_timing *t)
{
    char *tag = NULL;
    size_t len = 0, nt = ANY, nc = ANY;
    hid_t dt = -1, dc = -1; /* threads, call_threads: opened once, for the shape and the data */
    int rc = read_tag(r, g, path, SL_H5_FIELD(TREG_TAG), SL_H5_FIELD(TREG_TAG_BYTES), &tag, &len);
    if (!rc && (dt = sl_h5r_open_shape(r, g, path, SL_H5_FIELD(TREG_THREADS), &nt, NULL)) < 0)
        rc = -EINVAL;
    if (!rc && (dc = sl_h5r_open_shape(r, g, path, SL_H5_FIELD(TREG_CALL_THREADS), &nc, NULL)) < 0)
        rc = -EINVAL;
    sl_timing_region *tr = NULL;
    if (!rc) {
        tr = sl_timing_add(t, tag, len, nt, nc);
        rc = tr ? 0 : -ENOMEM;
    }
    free(tag);
    if (!rc) {
        rc = sl_h5r_read_open(r, dt, path, SL_H5_FIELD(TREG_THREADS), nt, 0, tr->threads);
        dt = -1;
    }
    if (!rc) {
        rc = sl_h5r_read_open(r, dc, path, SL_H5_FIELD(TREG_CALL_THREADS), nc, 0, tr->call_threads);
        dc = -1;
    }
    if (dt >= 0)
        H5Oclose(dt);
    if (dc >= 0)
        H5Oclose(dc);
    if (rc)
        return rc;
    const struct {
        sl_h5_fid f;
        int64_t *v;
    } a[] = {
        {SL_H5F_TREG_DROPPED_CALLS, &tr->dropped_calls},
        {SL_H5F_TREG_OPEN_AT_CLOSE, &tr->open_at_close},
        {SL_H5F_TREG_UNMATCHED_STOPS, &tr->unmatched_stops}, /* optional: stays 0 */
        {SL_H5F_TREG_NESTED_STARTS, &tr->nested_starts},
    };
    for (size_t i = 0; !rc && i < sizeof a / sizeof a[0]; i++)
        rc = sl_h5r_i64(r, g, path, &sl_h5_schema[a[i].f], a[i].v);
    const struct {
        sl_h5_fid f;
        int64_t *v;
        size_t n;
    } d[] = {
        {SL_H5F_TREG_CALL_COUNTS, tr->call_counts, nt},
        {SL_H5F_TREG_TOTAL_NS, tr->total_ns, nt},
        {SL_H5F_TREG_MIN_NS, tr->min_ns, nt},
        {SL_H5F_TREG_MAX_NS, tr->max_ns, nt},
        {SL_H5F_TREG_START_TIMES, tr->start_times, nc},
        {SL_H5F_TREG_END_TIMES, tr->end_times, nc},
    };
    for (size_t i = 0; !rc && i < sizeof d / sizeof d[0]; i++)
        rc = sl_h5r_data(r, g, path, &sl_h5_schema[d[i].f], d[i].n, 0, d[i].v);
    return rc;
}

typedef int (*region_fn)(sl_h5r *r, hid_t g, const char *path, void *arg);

/* Calls fn for every subgroup of path/regions, in file order. */
static int each_region(sl_h5r *r, hid_t parent, const char *path, region_fn fn, void *arg,
                       size_t *count)
{
    char *rpath = join(path, SL_H5N_regions);
    if (!rpath)
        return -ENOMEM;
    hid_t regs = open_group(r, parent, path, SL_H5N_regions);
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
    char *tpath = join(path, SL_H5N_timing);
    if (!tpath)
        return -ENOMEM;
    hid_t g = open_group(r, rank_g, path, SL_H5N_timing);
    int rc = g < 0 ? -EINVAL : sl_h5r_str(r, g, tpath, SL_H5_FIELD(TIMING_CLOCK), &t->clock);
    if (!rc)
        rc = sl_h5r_i64(r, g, tpath, SL_H5_FIELD(TIMING_ORIGIN_UNIX_NS), &t->origin_unix_ns);
    if (!rc)
        rc = each_region(r, g, tpath, timing_cb, t, NULL);
    if (g >= 0)
        H5Oclose(g);
    free(tpath);
    return rc;
}

static int read_source(sl_h5r *r, hid_t g, const char *path, const sl_h5_field *f,
                       sl_source *src)
{
    char *s = NULL;
    int rc = sl_h5r_str(r, g, path, f, &s);
    if (!rc && (sl_source_parse(s, strlen(s), src) < 0 || *src == SL_SOURCE_NONE)) {
        sl_diag_add(r->diag, r->file, 0,
                    "%s/%s: unknown source \"%s\": expected full_api, marker_file or marker_api",
                    path, f->name, s);
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
    char **ev = NULL, **ctr = NULL, **met = NULL;
    size_t len = 0, ne = 0, nc = 0, nm = 0, nl = 0, nt = ANY;
    int64_t gid = 0;
    sl_source src = SL_SOURCE_NONE;
    int rc = read_tag(r, g, path, SL_H5_FIELD(LREG_TAG), SL_H5_FIELD(LREG_TAG_BYTES), &tag, &len);
    if (!rc)
        rc = sl_h5r_str(r, g, path, SL_H5_FIELD(LREG_GROUP_NAME), &group_name);
    if (!rc)
        rc = read_source(r, g, path, SL_H5_FIELD(LREG_SOURCE), &src);
    if (!rc)
        rc = sl_h5r_i64(r, g, path, SL_H5_FIELD(LREG_GROUP_ID), &gid);
    if (!rc)
        rc = sl_h5r_strv(r, g, path, SL_H5_FIELD(LREG_EVENT_NAMES), ANY, &ev, &ne);
    if (!rc)
        rc = sl_h5r_strv(r, g, path, SL_H5_FIELD(LREG_COUNTER_NAMES), ne, &ctr, &nc);
    if (!rc)
        /* checked, not read: the labels are made again from the names */
        rc = sl_h5r_strv(r, g, path, SL_H5_FIELD(LREG_EVENT_LABELS), ne, NULL, &nl);
    if (!rc)
        rc = sl_h5r_strv(r, g, path, SL_H5_FIELD(LREG_METRIC_NAMES), ANY, &met, &nm);
    hid_t dcpus = -1; /* opened once, for the shape and the data */
    if (!rc && (dcpus = sl_h5r_open_shape(r, g, path, SL_H5_FIELD(LREG_CPUS), &nt, NULL)) < 0)
        rc = -EINVAL;
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
    if (!rc) {
        rc = sl_h5r_read_open(r, dcpus, path, SL_H5_FIELD(LREG_CPUS), nt, 0, reg->cpus);
        dcpus = -1;
    }
    if (dcpus >= 0)
        H5Oclose(dcpus);
    if (!rc)
        rc = sl_h5r_data(r, g, path, SL_H5_FIELD(LREG_TIMES), nt, 0, reg->times);
    if (!rc)
        rc = sl_h5r_data(r, g, path, SL_H5_FIELD(LREG_CALL_COUNTS), nt, 0, reg->call_counts);
    if (!rc)
        rc = sl_h5r_data(r, g, path, SL_H5_FIELD(LREG_EVENTS), ne, nt, reg->events);
    if (!rc)
        rc = sl_h5r_data(r, g, path, SL_H5_FIELD(LREG_METRICS), nm, nt, reg->metrics);
    free(tag);
    free(group_name);
    sl_h5r_free_names(ev, ne);
    sl_h5r_free_names(ctr, nc);
    sl_h5r_free_names(met, nm);
    return rc;
}

typedef struct env_ctx {
    sl_h5r *r;
    sl_run *run;
    const char *path;
    int rc;
} env_ctx;

/* Every string attribute of likwid/ but the schema's own is a LIKWID_*
 * variable (LIKWID_ENV: the writer keeps the name the variable had). */
static herr_t env_attr(hid_t g, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    env_ctx *c = data;
    if (strcmp(name, SL_H5_NAME(LIKWID_SOURCE)) == 0 ||
        strcmp(name, SL_H5_NAME(LIKWID_NUM_REGIONS)) == 0)
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
    sl_h5_field row = *SL_H5_FIELD(LIKWID_ENV);
    row.name = name;
    row.need = SL_H5_REQ;
    char *v = NULL;
    c->rc = sl_h5r_str(c->r, g, c->path, &row, &v);
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
    if (H5Lexists(rank_g, SL_H5N_likwid, H5P_DEFAULT) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0; /* no counter data: allowed (RANK_LIKWID is optional) */
    }
    char *lpath = join(path, SL_H5N_likwid);
    if (!lpath)
        return -ENOMEM;
    hid_t g = open_group(r, rank_g, path, SL_H5N_likwid);
    int64_t num = 0;
    size_t count = 0;
    int rc = g < 0 ? -EINVAL : sl_h5r_i64(r, g, lpath, SL_H5_FIELD(LIKWID_NUM_REGIONS), &num);
    if (!rc)
        rc = read_source(r, g, lpath, SL_H5_FIELD(LIKWID_SOURCE), &run->likwid.source);
    if (!rc)
        rc = read_env(r, g, lpath, run);
    if (!rc)
        rc = each_region(r, g, lpath, likwid_region, &run->likwid, &count);
    if (!rc && (num < 0 || (uint64_t)num != count)) {
        sl_diag_add(r->diag, r->file, 0, "%s/%s: is %" PRId64 ": expected %zu, the regions present",
                    lpath, SL_H5_NAME(LIKWID_NUM_REGIONS), num, count);
        rc = -EINVAL;
    }
    if (g >= 0)
        H5Oclose(g);
    free(lpath);
    return rc;
}

/* Format 2: rank<R>/regions is timing/regions itself (a hard link), left
 * out when there is no timing region. */
static int check_regions_link(sl_h5r *r, hid_t g, const char *path, size_t ntiming)
{
    int same = sl_h5_same_object(g, SL_H5N_timing "/" SL_H5N_regions, SL_H5N_regions);
    if (same > 0)
        return 0;
    if (same < 0 && ntiming == 0 && H5Lexists(g, SL_H5N_regions, H5P_DEFAULT) == 0)
        return 0;
    H5Eclear2(H5E_DEFAULT);
    sl_diag_add(r->diag, r->file, 0, "%s/%s: %s: expected a hard link to %s/%s", path,
                SL_H5N_regions, same == 0 ? "not the same group" : "group missing", SL_H5N_timing,
                SL_H5N_regions);
    return -EINVAL;
}

int sl_h5r_run(sl_h5r *r, hid_t f, const char *name, int64_t rank, sl_run *run)
{
    int rc = sl_run_init(run);
    if (rc)
        return rc;
    run->rank = rank;
    if (sl_set_string(&run->group, name) < 0)
        return -ENOMEM;
    char *path = join("", name);
    if (!path)
        return -ENOMEM;
    hid_t g = open_group(r, f, "", name);
    rc = g < 0 ? -EINVAL : 0;
    if (!rc)
        rc = sl_h5r_str(r, g, path, SL_H5_FIELD(RANK_HOSTNAME), &run->hostname);
    if (!rc)
        rc = sl_h5r_str(r, g, path, SL_H5_FIELD(RANK_EXECUTABLE), &run->executable);
    if (!rc)
        rc = sl_h5r_str(r, g, path, SL_H5_FIELD(RANK_COMMAND_LINE), &run->command_line);
    if (!rc)
        rc = sl_h5r_i64(r, g, path, SL_H5_FIELD(RANK_PID), &run->pid);
    if (!rc)
        rc = sl_h5r_i64(r, g, path, SL_H5_FIELD(RANK_PARENT_PID), &run->parent_pid);
    if (!rc)
        rc = sl_h5r_i64(r, g, path, SL_H5_FIELD(RANK_MPI_RANK), &run->mpi_rank);
    if (!rc)
        rc = sl_h5r_str(r, g, path, SL_H5_FIELD(RANK_LIKWID_STATUS), &run->likwid_status);
    if (!rc)
        rc = sl_h5r_str(r, g, path, SL_H5_FIELD(RANK_MERGED_FROM), &run->merged_from);
    if (!rc)
        rc = sl_h5r_str(r, g, path, SL_H5_FIELD(RANK_MERGED_FROM_GROUP), &run->merged_from_group);
    if (!rc)
        rc = read_timing(r, g, path, &run->timing);
    if (!rc && r->version >= SL_H5_FIELD(RANK_REGIONS)->since)
        rc = check_regions_link(r, g, path, run->timing.nregions);
    if (!rc)
        rc = read_likwid(r, g, path, run);
    if (g >= 0)
        H5Oclose(g);
    free(path);
    return rc;
}
