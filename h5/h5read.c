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
    hid_t g = sl_h5_open_group(parent, name);
    if (g < 0)
        sl_diag_add(r->diag, r->file, 0, "%s/%s: %s: expected a group", path, name,
                    sl_h5_object_kind(parent, name));
    return g;
}

static char *join(const char *path, const char *name)
{
    char *s = NULL;
    return asprintf(&s, "%s/%s", path, name) < 0 ? NULL : s;
}

/* ---- timing/ ---- */

static int timing_region(sl_h5r *r, hid_t g, const char *path, sl_timing *t)
{
    sl_timing_region st = {0};
    sl_h5_opened op = {0};
    sl_h5r_rows_unknown(SL_H5O_TREG, &st);
    int rc = sl_h5r_rows_attrs(r, g, path, SL_H5O_TREG, &st, NULL, NULL, &op);
    sl_timing_region *tr = NULL;
    if (!rc) {
        tr = sl_timing_add(t, st.tag, st.tag_len, st.nthreads, st.ncalls);
        rc = tr ? 0 : -ENOMEM;
    }
    if (!rc)
        sl_h5r_rows_carry(SL_H5O_TREG, tr, &st);
    sl_h5r_rows_drop(SL_H5O_TREG, &st);
    if (!rc)
        return sl_h5r_rows_data(r, g, path, SL_H5O_TREG, tr, &op);
    sl_h5r_rows_close(&op);
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
    int rc = g < 0 ? -EINVAL : sl_h5r_rows_attrs(r, g, tpath, SL_H5O_TIMING, t, NULL, NULL, NULL);
    if (!rc)
        rc = each_region(r, g, tpath, timing_cb, t, NULL);
    if (g >= 0)
        H5Oclose(g);
    free(tpath);
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

/* A region's derived fields: its names, kept aside until the region is
 * made (they are its own only when the source named them); the labels
 * are checked, not read (they are made again from the names). */
typedef struct lreg_names {
    char **ev, **ctr;
    size_t nc;
} lreg_names;

static int lreg_fn(sl_h5r *r, hid_t g, const char *path, sl_h5_fid id, void *elem, void *ctx)
{
    sl_region *st = elem;
    lreg_names *n = ctx;
    size_t nl = 0;
    switch (id) {
    case SL_H5F_LREG_EVENT_NAMES:
        return sl_h5r_strv(r, g, path, SL_H5_ROW(id), ANY, &n->ev, &st->nevents);
    case SL_H5F_LREG_COUNTER_NAMES:
        return sl_h5r_strv(r, g, path, SL_H5_ROW(id), st->nevents, &n->ctr, &n->nc);
    case SL_H5F_LREG_EVENT_LABELS:
        return sl_h5r_strv(r, g, path, SL_H5_ROW(id), st->nevents, NULL, &nl);
    default:
        return 0;
    }
}

static int likwid_region(sl_h5r *r, hid_t g, const char *path, void *arg)
{
    sl_likwid *lw = arg;
    sl_region st = {0};
    lreg_names n = {0};
    sl_h5_opened op = {0};
    sl_h5r_rows_unknown(SL_H5O_LREG, &st);
    int rc = sl_h5r_rows_attrs(r, g, path, SL_H5O_LREG, &st, lreg_fn, &n, &op);
    sl_region *reg = NULL;
    if (!rc) {
        int has_names = names_given(n.ev, n.ctr, st.nevents, st.source);
        reg = sl_likwid_add(lw, st.tag, st.tag_len, st.group_id, st.group_name, st.source,
                            st.nthreads, st.nevents, st.nmetrics, has_names);
        rc = reg ? 0 : -ENOMEM;
        if (!rc && has_names)
            rc = copy_names(reg->event_names, n.ev, st.nevents);
        if (!rc && has_names)
            rc = copy_names(reg->counter_names, n.ctr, st.nevents);
    }
    if (!rc)
        sl_h5r_rows_carry(SL_H5O_LREG, reg, &st);
    sl_h5r_free_names(n.ev, n.ev ? st.nevents : 0);
    sl_h5r_free_names(n.ctr, n.nc);
    sl_h5r_rows_drop(SL_H5O_LREG, &st);
    if (!rc)
        return sl_h5r_rows_data(r, g, path, SL_H5O_LREG, reg, &op);
    sl_h5r_rows_close(&op);
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
    char *v = NULL;
    c->rc = sl_h5r_match_str(c->r, g, c->path, SL_H5_FIELD(LIKWID_ENV), name, &v);
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

/* likwid/'s derived fields: num_regions (checked against the regions
 * once they are read), the run's LIKWID_* variables. */
typedef struct likwid_ctx {
    sl_run *run;
    int64_t num_regions;
} likwid_ctx;

static int likwid_fn(sl_h5r *r, hid_t g, const char *path, sl_h5_fid id, void *elem, void *ctx)
{
    (void)elem;
    likwid_ctx *c = ctx;
    if (id == SL_H5F_LIKWID_NUM_REGIONS)
        return sl_h5r_i64(r, g, path, SL_H5_ROW(id), &c->num_regions);
    return id == SL_H5F_LIKWID_ENV ? read_env(r, g, path, c->run) : 0;
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
    likwid_ctx c = {run, 0};
    size_t count = 0;
    int rc = g < 0 ? -EINVAL : sl_h5r_rows_attrs(r, g, lpath, SL_H5O_LIKWID, &run->likwid, likwid_fn, &c, NULL);
    if (!rc)
        rc = each_region(r, g, lpath, likwid_region, &run->likwid, &count);
    if (!rc && (c.num_regions < 0 || (uint64_t)c.num_regions != count)) {
        sl_diag_add(r->diag, r->file, 0, "%s/%s: is %" PRId64 ": expected %zu, the regions present",
                    lpath, SL_H5_NAME(LIKWID_NUM_REGIONS), c.num_regions, count);
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
    rc = g < 0 ? -EINVAL : sl_h5r_rows_attrs(r, g, path, SL_H5O_RANK, run, NULL, NULL, NULL);
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
