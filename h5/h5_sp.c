/* scope-profiler's own files (docs/SCOPE-PROFILER.md): recognising one,
 * reading its ranks as runs, and writing rank<R>/likwid into one in the
 * layout of scope-profiler's LIKWID writer (write_likwid_results). */
#include "h5_guard.h"
#include "h5_sp.h"
#include "h5_util.h"
#include "h5read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "names.h"
#include "sat.h"

#define ANY ((size_t)-1)
#define SP_VERSION "scope_profiler_version"

/* ---- recognising one ---- */

typedef struct shape_ctx {
    int ranks;  /* rank<N> groups holding regions */
    int bad;    /* a top-level name that is neither */
} shape_ctx;

static herr_t top_name(hid_t f, const char *name, const H5L_info_t *info, void *data)
{
    shape_ctx *c = data;
    int64_t rank, copy;
    if (!strcmp(name, SL_H5N_metadata))
        return 0;
    if (info->type != H5L_TYPE_HARD || !sl_h5_rank_parse(name, &rank, &copy) || copy) {
        c->bad = 1;
        return 1;
    }
    hid_t g = H5Oopen(f, name, sl_h5_guard_lapl());
    int ok = g >= 0 && H5Iget_type(g) == H5I_GROUP && H5Lexists(g, SL_H5N_regions, H5P_DEFAULT) > 0;
    if (g >= 0)
        H5Oclose(g);
    H5Eclear2(H5E_DEFAULT);
    if (!ok) {
        c->bad = 1;
        return 1;
    }
    c->ranks++;
    return 0;
}

int sl_h5_sp_file(hid_t f)
{
    if (H5Aexists(f, SL_H5N_format) != 0 || H5Lexists(f, SL_H5N_metadata, H5P_DEFAULT) <= 0 ||
        !sl_h5_guard_hard(f, SL_H5N_metadata) ||
        H5Aexists_by_name(f, SL_H5N_metadata, SP_VERSION, sl_h5_guard_lapl()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    shape_ctx c = {0, 0};
    hsize_t idx = 0;
    herr_t rc = H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, &idx, top_name, &c);
    H5Eclear2(H5E_DEFAULT);
    return rc >= 0 && !c.bad && c.ranks > 0;
}

int sl_h5_sp_group(hid_t f, const char *name)
{
    hid_t g = H5Oopen(f, name, sl_h5_guard_lapl());
    int sp = g >= 0 && H5Iget_type(g) == H5I_GROUP && H5Lexists(g, SL_H5N_timing, H5P_DEFAULT) == 0 &&
             H5Aexists(g, SL_H5N_pid) == 0 && H5Lexists(g, SL_H5N_regions, H5P_DEFAULT) > 0;
    if (g >= 0)
        H5Oclose(g);
    H5Eclear2(H5E_DEFAULT);
    return sp;
}

/* ---- reading one rank ---- */

static char *join(const char *path, const char *name)
{
    char *s = NULL;
    return asprintf(&s, "%s/%s", path, name) < 0 ? NULL : s;
}

/* Opens group name of parent; path names it in the message. */
static hid_t open_group(sl_h5r *r, hid_t parent, const char *name, const char *path,
                        const char *what)
{
    hid_t g = sl_h5_open_group(parent, name);
    if (g < 0)
        sl_diag_add(r->diag, r->file, 0, "%s: not a group: expected %s", path, what);
    return g;
}

/* regions/<name>: start_times and end_times of one length, the region's
 * calls; one thread (thread id 0) made them all. */
static int sp_region(sl_h5r *r, hid_t g, const char *path, const char *name, sl_timing *t)
{
    size_t nc = ANY;
    int rc = sl_h5r_shape(r, g, path, SL_H5_FIELD(TREG_START_TIMES), &nc, NULL);
    if (!rc)
        rc = sl_h5r_shape(r, g, path, SL_H5_FIELD(TREG_END_TIMES), &nc, NULL);
    if (rc)
        return rc;
    sl_timing_region *tr = sl_timing_add(t, name, strlen(name), nc ? 1 : 0, nc);
    if (!tr)
        return -ENOMEM;
    rc = sl_h5r_data(r, g, path, SL_H5_FIELD(TREG_START_TIMES), nc, 0, tr->start_times);
    if (!rc)
        rc = sl_h5r_data(r, g, path, SL_H5_FIELD(TREG_END_TIMES), nc, 0, tr->end_times);
    if (rc || !nc)
        return rc;
    tr->threads[0] = 0;
    tr->call_counts[0] = (int64_t)nc;
    /* Any int64 pair may come (an end before its start, extremes): the
     * figures saturate, and max starts below every duration. */
    tr->min_ns[0] = INT64_MAX;
    tr->max_ns[0] = INT64_MIN;
    for (size_t c = 0; c < nc; c++) {
        int64_t d = sl_sub_sat(tr->end_times[c], tr->start_times[c]);
        tr->call_threads[c] = 0;
        tr->total_ns[0] = sl_add_sat(tr->total_ns[0], d);
        if (d < tr->min_ns[0])
            tr->min_ns[0] = d;
        if (d > tr->max_ns[0])
            tr->max_ns[0] = d;
    }
    return 0;
}

static int sp_timing(sl_h5r *r, hid_t rank_g, const char *path, sl_timing *t)
{
    if (sl_set_string(&t->clock, "CLOCK_MONOTONIC") < 0) /* their perf_counter_ns */
        return -ENOMEM;
    t->origin_unix_ns = 0;                               /* not recorded */
    t->recorder = "scope-profiler";
    if (H5Lexists(rank_g, SL_H5N_regions, H5P_DEFAULT) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    char *rpath = join(path, SL_H5N_regions);
    if (!rpath)
        return -ENOMEM;
    hid_t regs = open_group(r, rank_g, SL_H5N_regions, rpath, "scope-profiler's group of regions");
    char **names = NULL;
    size_t n = 0;
    int rc = regs < 0 ? -EINVAL : sl_h5r_links(r, regs, rpath, &names, &n);
    for (size_t i = 0; !rc && i < n; i++) {
        char *gpath = join(rpath, names[i]);
        hid_t g = gpath ? open_group(r, regs, names[i], gpath,
                                     "a region with start_times and end_times")
                        : -1;
        rc = !gpath ? -ENOMEM : g < 0 ? -EINVAL : sp_region(r, g, gpath, names[i], t);
        if (g >= 0)
            H5Oclose(g);
        free(gpath);
    }
    sl_h5r_free_names(names, n);
    if (regs >= 0)
        H5Oclose(regs);
    free(rpath);
    return rc;
}

/* ---- reading rank<R>/likwid as scope-profiler does ---- */

/* The schema's row for a field, optional: scope-profiler's reader takes ""
 * -1 and [] for absent attrs. */
static const sl_h5_field *opt_row(sl_h5_field *buf, sl_h5_fid id)
{
    *buf = sl_h5_schema[id];
    buf->need = SL_H5_OPT;
    return buf;
}

/* Names given by the source, not the event_<e> stand-ins without counter
 * names that a marker file or the marker API gives. */
static int has_real_names(char **ev, size_t ne, size_t nc, sl_source src)
{
    if (ne == 0)
        return src == SL_SOURCE_FULL_API;
    if (nc)
        return 1;
    char buf[32];
    for (size_t i = 0; i < ne; i++) {
        snprintf(buf, sizeof buf, "event_%zu", i);
        if (strcmp(ev[i], buf) != 0)
            return 1;
    }
    return 0;
}

/* A 2-D dataset of rows x nt, where an empty one may be (0, 0) as numpy
 * writes an empty array: nothing to read then. */
static int rows_data(sl_h5r *r, hid_t g, const char *path, sl_h5_fid id, size_t rows, size_t nt,
                     double *dst)
{
    size_t d0 = ANY, d1 = ANY;
    int rc = sl_h5r_shape(r, g, path, &sl_h5_schema[id], &d0, &d1);
    if (rc || (rows == 0 && d0 == 0))
        return rc;
    return sl_h5r_data(r, g, path, &sl_h5_schema[id], rows, nt, dst);
}

static int copy_strings(char **dst, char **src, size_t n, size_t have)
{
    for (size_t i = 0; i < n; i++)
        if (sl_set_string(&dst[i], i < have ? src[i] : "") < 0)
            return -ENOMEM;
    return 0;
}

static int sp_likwid_read_region(sl_h5r *r, hid_t g, const char *path, const char *name,
                                 sl_likwid *lw)
{
    sl_h5_field b;
    char *tag = NULL, *gname = NULL, *src_s = NULL, **ev = NULL, **ctr = NULL, **met = NULL;
    size_t len = 0, ne = 0, nc = 0, nm = 0, nt = ANY;
    int64_t gid = -1;
    sl_source src = SL_SOURCE_FULL_API; /* their reader's default */
    int rc = sl_h5r_u8v(r, g, path, opt_row(&b, SL_H5F_LREG_TAG_BYTES), &tag, &len);
    if (!rc && !tag) {
        rc = sl_h5r_str(r, g, path, opt_row(&b, SL_H5F_LREG_TAG), &tag);
        if (!rc && !tag && !(tag = strdup(name))) /* no tag: the group's name */
            rc = -ENOMEM;
        len = tag ? strlen(tag) : 0;
    }
    if (!rc)
        rc = sl_h5r_str(r, g, path, opt_row(&b, SL_H5F_LREG_GROUP_NAME), &gname);
    if (!rc)
        rc = sl_h5r_i64(r, g, path, opt_row(&b, SL_H5F_LREG_GROUP_ID), &gid);
    if (!rc)
        rc = sl_h5r_str(r, g, path, opt_row(&b, SL_H5F_LREG_SOURCE), &src_s);
    if (!rc && src_s && (sl_source_parse(src_s, strlen(src_s), &src) < 0 || src == SL_SOURCE_NONE)) {
        sl_diag_add(r->diag, r->file, 0,
                    "%s/%s: unknown source \"%s\": expected full_api, marker_file or marker_api",
                    path, SL_H5N_source, src_s);
        rc = -EINVAL;
    }
    if (!rc)
        rc = sl_h5r_strv(r, g, path, opt_row(&b, SL_H5F_LREG_EVENT_NAMES), ANY, &ev, &ne);
    if (!rc)
        rc = sl_h5r_strv(r, g, path, opt_row(&b, SL_H5F_LREG_COUNTER_NAMES), ANY, &ctr, &nc);
    if (!rc)
        rc = sl_h5r_strv(r, g, path, opt_row(&b, SL_H5F_LREG_METRIC_NAMES), ANY, &met, &nm);
    if (!rc)
        rc = sl_h5r_shape(r, g, path, SL_H5_FIELD(LREG_CPUS), &nt, NULL);
    if (!rc && nc > ne) {
        sl_diag_add(r->diag, r->file, 0, "%s/%s: %zu names: expected at most %zu, one per event",
                    path, SL_H5N_counter_names, nc, ne);
        rc = -EINVAL;
    }
    sl_region *reg = NULL;
    int named = !rc && has_real_names(ev, ne, nc, src);
    if (!rc) {
        reg = sl_likwid_add(lw, tag, len, gid, gname ? gname : "", src, nt, ne, nm, named);
        rc = reg ? 0 : -ENOMEM;
    }
    if (!rc && named)
        rc = copy_strings(reg->event_names, ev, ne, ne);
    if (!rc && named)
        rc = copy_strings(reg->counter_names, ctr, ne, nc);
    if (!rc)
        rc = copy_strings(reg->metric_names, met, nm, nm);
    if (!rc)
        rc = sl_h5r_data(r, g, path, SL_H5_FIELD(LREG_CPUS), nt, 0, reg->cpus);
    if (!rc)
        rc = sl_h5r_data(r, g, path, SL_H5_FIELD(LREG_TIMES), nt, 0, reg->times);
    if (!rc)
        rc = sl_h5r_data(r, g, path, SL_H5_FIELD(LREG_CALL_COUNTS), nt, 0, reg->call_counts);
    if (!rc)
        rc = rows_data(r, g, path, SL_H5F_LREG_EVENTS, ne, nt, reg->events);
    if (!rc)
        rc = rows_data(r, g, path, SL_H5F_LREG_METRICS, nm, nt, reg->metrics);
    free(tag);
    free(gname);
    free(src_s);
    sl_h5r_free_names(ev, ne);
    sl_h5r_free_names(ctr, nc);
    sl_h5r_free_names(met, nm);
    return rc;
}

/* Every string attr LIKWID_* of likwid/ is a variable of the run. */
static herr_t sp_env_attr(hid_t g, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    void **c = data;
    sl_h5r *r = c[0];
    sl_run *run = c[1];
    int *rc = c[2];
    if (strncmp(name, SL_H5N_LIKWID_, strlen(SL_H5N_LIKWID_)) != 0)
        return 0;
    char *v = NULL;
    *rc = sl_h5r_match_str(r, g, c[3], SL_H5_FIELD(LIKWID_ENV), name, &v);
    if (!*rc)
        *rc = sl_run_add_env(run, name, v);
    free(v);
    return *rc ? -1 : 0;
}

int sl_h5r_likwid_any(sl_h5r *r, hid_t rank_g, const char *path, sl_run *run)
{
    if (H5Lexists(rank_g, SL_H5N_likwid, H5P_DEFAULT) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    char *lpath = join(path, SL_H5N_likwid), *rpath = lpath ? join(lpath, SL_H5N_regions) : NULL;
    if (!rpath) {
        free(lpath);
        return -ENOMEM;
    }
    hid_t g = open_group(r, rank_g, SL_H5N_likwid, lpath, "a group of LIKWID results");
    int rc = g < 0 ? -EINVAL : 0;
    char *src_s = NULL;
    sl_h5_field b;
    if (!rc)
        rc = sl_h5r_str(r, g, lpath, opt_row(&b, SL_H5F_LIKWID_SOURCE), &src_s);
    if (!rc) {
        void *c[4] = {r, run, &rc, lpath};
        hsize_t idx = 0;
        if (H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, sp_env_attr, c) < 0 && !rc) {
            sl_diag_add(r->diag, r->file, 0, "%s: cannot list attributes: expected readable "
                        "attributes", lpath);
            rc = -EINVAL;
        }
        H5Eclear2(H5E_DEFAULT);
    }
    /* regions/ may be missing: no counters */
    htri_t has_regs = rc ? 0 : H5Lexists(g, SL_H5N_regions, H5P_DEFAULT);
    hid_t regs = has_regs > 0 ? open_group(r, g, SL_H5N_regions, rpath, "a group of LIKWID regions") : -1;
    if (has_regs > 0 && regs < 0)
        rc = -EINVAL;
    char **names = NULL;
    size_t n = 0;
    if (!rc && regs >= 0)
        rc = sl_h5r_links(r, regs, rpath, &names, &n);
    for (size_t i = 0; !rc && i < n; i++) {
        char *gpath = join(rpath, names[i]);
        hid_t rg = gpath ? open_group(r, regs, names[i], gpath, "a LIKWID region") : -1;
        rc = !gpath ? -ENOMEM : rg < 0 ? -EINVAL
                                       : sp_likwid_read_region(r, rg, gpath, names[i], &run->likwid);
        if (rg >= 0)
            H5Oclose(rg);
        free(gpath);
    }
    sl_likwid *lw = &run->likwid;
    if (!rc && src_s && sl_source_parse(src_s, strlen(src_s), &lw->source) < 0)
        lw->source = SL_SOURCE_NONE;
    if (!rc && lw->source == SL_SOURCE_NONE)
        lw->source = lw->nregions ? lw->regions[0].source : SL_SOURCE_FULL_API;
    sl_h5r_free_names(names, n);
    if (regs >= 0)
        H5Oclose(regs);
    if (g >= 0)
        H5Oclose(g);
    H5Eclear2(H5E_DEFAULT);
    free(src_s);
    free(lpath);
    free(rpath);
    return rc;
}

/* A rank group in scope-profiler's layout (in their file, or copied into a
 * merged file of ours): regions/ is the timing, likwid/ (their LIKWID
 * writer's layout, or ours) the counters, /metadata the host. */
int sl_h5r_sp_run(sl_h5r *r, hid_t f, const char *name, int64_t number,
                  const sl_file_meta *meta, sl_run *run)
{
    int rc = sl_run_init(run);
    if (rc)
        return rc;
    run->rank = number;
    run->mpi_rank = number;
    run->pid = -1;
    char *path = join("", name);
    if (!path || sl_set_string(&run->group, name) < 0 ||
        sl_set_string(&run->hostname, meta->hostname ? meta->hostname : "") < 0) {
        free(path);
        return -ENOMEM;
    }
    hid_t g = open_group(r, f, name, path, "a rank group");
    rc = g < 0 ? -EINVAL : 0;
    /* a merged file of ours adds the origin and may keep the rest */
    const sl_h5_fid opt[] = {SL_H5F_RANK_HOSTNAME, SL_H5F_RANK_EXECUTABLE,
                             SL_H5F_RANK_COMMAND_LINE, SL_H5F_RANK_MERGED_FROM,
                             SL_H5F_RANK_MERGED_FROM_GROUP};
    char **dst[] = {&run->hostname, &run->executable, &run->command_line, &run->merged_from,
                    &run->merged_from_group};
    for (size_t i = 0; !rc && i < sizeof opt / sizeof opt[0]; i++) {
        sl_h5_field row = sl_h5_schema[opt[i]];
        row.need = SL_H5_OPT;
        rc = sl_h5r_str(r, g, path, &row, dst[i]);
    }
    /* their rank number is the MPI rank it recorded: in a merged file, the
     * name it had in its own file */
    int64_t rec, copy;
    if (!rc && run->merged_from_group && sl_h5_rank_parse(run->merged_from_group, &rec, &copy) &&
        !copy)
        run->mpi_rank = rec;
    if (!rc)
        rc = sp_timing(r, g, path, &run->timing);
    if (!rc)
        rc = sl_h5r_likwid_any(r, g, path, run);
    if (!rc)
        rc = sl_set_string(&run->likwid_status,
                           run->likwid.source != SL_SOURCE_NONE
                               ? "likwid: read from scope-profiler's layout (rank<N>/likwid)"
                               : "timing only: scope-profiler's layout, no rank<N>/likwid") < 0
                 ? -ENOMEM
                 : 0;
    if (g >= 0)
        H5Oclose(g);
    free(path);
    return rc;
}
