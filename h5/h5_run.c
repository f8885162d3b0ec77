/* Writes one run (one process) into its rank<R> group: the layout of
 * docs/FORMAT.md, rank attributes, timing/ and likwid/. */
#include "h5_sp.h"
#include "h5_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "names.h"

static int close_fail(hid_t g, int rc)
{
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

/* ---- rank attributes, timing/ ---- */

/* A region's group under its encoded name (docs/FORMAT.md, "Names of
 * region groups"). */
static hid_t region_group(sl_h5w *w, hid_t parent, const char *tag, size_t len, int64_t gid,
                          int multi)
{
    char *name = sl_name_encode(tag, len, gid, multi);
    if (!name)
        return -ENOMEM;
    hid_t g = sl_h5w_group(w, parent, name, 0);
    free(name);
    return g < 0 ? -EIO : g;
}

/* Writes the rank attributes the group does not have yet (all of them for
 * a new group; sl_h5_into keeps an existing group's own). parent_pid only
 * a forked child's group has (files without it read as 0). */
int sl_h5w_rank_attrs(sl_h5w *w, hid_t g, const sl_run *run)
{
    return sl_h5w_rows(w, g, SL_H5O_RANK, SL_H5_ROWS_ATTR, run, NULL, NULL, 1);
}

static int timing_region(sl_h5w *w, hid_t parent, const char *name, const sl_timing_region *t)
{
    hid_t g = sl_h5w_group(w, parent, name, 0);
    if (g < 0)
        return -EIO;
    return close_fail(g, sl_h5w_rows(w, g, SL_H5O_TREG, SL_H5_ROWS_ALL, t, NULL, NULL, 0));
}

int sl_h5w_timing(sl_h5w *w, hid_t rank_g, const sl_timing *t)
{
    hid_t g = sl_h5w_group(w, rank_g, SL_H5N_timing, 0);
    if (g < 0)
        return -EIO;
    int rc = sl_h5w_rows(w, g, SL_H5O_TIMING, SL_H5_ROWS_ATTR, t, NULL, NULL, 0);
    if (rc)
        return close_fail(g, rc);
    hid_t regs = sl_h5w_group(w, g, SL_H5N_regions, 1);
    if (regs < 0)
        return close_fail(g, -EIO);
    char **names = NULL;
    rc = sl_timing_names(t, &names);
    for (size_t i = 0; !rc && i < t->nregions; i++)
        rc = timing_region(w, regs, names[i], &t->regions[i]);
    sl_timing_names_free(names, t->nregions);
    H5Gclose(regs);
    return close_fail(g, rc);
}

/* ---- likwid/ ---- */

static int cmp_tag(const void *a, const void *b, void *base)
{
    const sl_region *rs = base;
    const sl_region *x = &rs[*(const size_t *)a], *y = &rs[*(const size_t *)b];
    size_t n = x->tag_len < y->tag_len ? x->tag_len : y->tag_len;
    int c = memcmp(x->tag, y->tag, n);
    if (c)
        return c;
    return (x->tag_len > y->tag_len) - (x->tag_len < y->tag_len);
}

unsigned char *sl_h5w_multi_groups(const sl_likwid *lw)
{
    size_t n = lw->nregions;
    unsigned char *multi = calloc(n ? n : 1, 1);
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!multi || !idx) {
        free(multi);
        free(idx);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    qsort_r(idx, n, sizeof *idx, cmp_tag, lw->regions);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        int differ = 0;
        while (j < n && cmp_tag(&idx[i], &idx[j], lw->regions) == 0) {
            differ |= lw->regions[idx[j]].group_id != lw->regions[idx[i]].group_id;
            j++;
        }
        for (size_t k = i; k < j; k++)
            multi[idx[k]] = (unsigned char)differ;
        i = j;
    }
    free(idx);
    return multi;
}

/* What a region's names are made from: without names from its source,
 * event_names are its labels and counter_names are unknown (""). */
typedef struct lreg_names {
    char **labels;
    char **counters; /* nevents "" (NULL when the source named them) */
} lreg_names;

static int lreg_fn(sl_h5w *w, hid_t g, sl_h5_fid id, const void *elem, void *ctx)
{
    const sl_region *r = elem;
    const lreg_names *n = ctx;
    switch (id) {
    case SL_H5F_LREG_EVENT_NAMES:
        return sl_h5w_strv(w, g, SL_H5_NAME(LREG_EVENT_NAMES),
                           r->has_names ? r->event_names : n->labels, r->nevents);
    case SL_H5F_LREG_COUNTER_NAMES:
        return sl_h5w_strv(w, g, SL_H5_NAME(LREG_COUNTER_NAMES),
                           r->has_names ? r->counter_names : n->counters, r->nevents);
    case SL_H5F_LREG_EVENT_LABELS:
        return sl_h5w_strv(w, g, SL_H5_NAME(LREG_EVENT_LABELS), n->labels, r->nevents);
    default:
        return 0;
    }
}

static int likwid_region(sl_h5w *w, hid_t parent, const sl_region *r, int multi)
{
    hid_t g = region_group(w, parent, r->tag, r->tag_len, r->group_id, multi);
    if (g < 0)
        return (int)g;
    lreg_names n = {sl_event_labels(r), NULL};
    int rc = !n.labels && r->nevents ? -ENOMEM : 0;
    if (!rc && !r->has_names) {
        n.counters = calloc(r->nevents ? r->nevents : 1, sizeof *n.counters);
        rc = n.counters ? 0 : -ENOMEM;
    }
    if (!rc)
        rc = sl_h5w_rows(w, g, SL_H5O_LREG, SL_H5_ROWS_ALL, r, lreg_fn, &n, 0);
    free(n.counters);
    sl_labels_free(n.labels, r->nevents);
    return close_fail(g, rc);
}

static int likwid_env(sl_h5w *w, hid_t g, const sl_run *run)
{
    for (size_t i = 0; i < run->nenv; i++) {
        const char *name = run->env[i].name ? run->env[i].name : "";
        char *shown = sl_tag_display(name, strlen(name));
        if (!shown)
            return -ENOMEM;
        htri_t taken = *shown ? H5Aexists(g, shown) : 1;
        int rc = 0;
        if (taken != 0)
            sl_diag_add(w->diag, w->file, 0,
                        "environment variable \"%s\" not written: its name is empty or taken", shown);
        else
            rc = sl_h5w_str(w, g, shown, run->env[i].value);
        free(shown);
        if (rc)
            return rc;
    }
    return 0;
}

/* likwid/'s derived fields: the number of regions, the run's LIKWID_*
 * variables (ctx: the run). */
static int likwid_fn(sl_h5w *w, hid_t g, sl_h5_fid id, const void *elem, void *ctx)
{
    const sl_likwid *lw = elem;
    if (id == SL_H5F_LIKWID_NUM_REGIONS)
        return sl_h5w_i64(w, g, SL_H5_NAME(LIKWID_NUM_REGIONS), (int64_t)lw->nregions);
    return id == SL_H5F_LIKWID_ENV ? likwid_env(w, g, ctx) : 0;
}

int sl_h5w_likwid(sl_h5w *w, hid_t rank_g, const sl_run *run)
{
    const sl_likwid *lw = &run->likwid;
    hid_t g = sl_h5w_group(w, rank_g, SL_H5N_likwid, 1);
    if (g < 0)
        return -EIO;
    int rc = sl_h5w_rows(w, g, SL_H5O_LIKWID, SL_H5_ROWS_ATTR, lw, likwid_fn, (void *)run, 0);
    if (rc)
        return close_fail(g, rc);
    hid_t regs = sl_h5w_group(w, g, SL_H5N_regions, 1);
    if (regs < 0)
        return close_fail(g, -EIO);
    unsigned char *multi = sl_h5w_multi_groups(lw);
    rc = multi ? 0 : -ENOMEM;
    for (size_t i = 0; !rc && i < lw->nregions; i++)
        rc = likwid_region(w, regs, &lw->regions[i], multi[i]);
    free(multi);
    H5Gclose(regs);
    return close_fail(g, rc);
}

int sl_h5w_regions_link(sl_h5w *w, hid_t rank_g)
{
    if (H5Lcreate_hard(rank_g, SL_H5N_timing "/" SL_H5N_regions, rank_g, SL_H5N_regions, w->lcpl,
                       H5P_DEFAULT) < 0)
        return sl_h5w_fail(w, -EIO, "link", SL_H5N_regions);
    return 0;
}

int sl_h5w_run(sl_h5w *w, hid_t file, const sl_run *run)
{
    char name[32];
    sl_h5_rank_name(name, sizeof name, run->rank, 0);
    hid_t g = sl_h5w_group(w, file, name, 0);
    if (g < 0)
        return -EIO;
    int rc = sl_h5w_rank_attrs(w, g, run);
    if (!rc)
        rc = sl_h5w_timing(w, g, &run->timing);
    if (!rc && run->timing.nregions) /* none: left out, as scope-profiler has it */
        rc = sl_h5w_regions_link(w, g);
    if (!rc && run->likwid.source != SL_SOURCE_NONE)
        rc = sl_h5w_likwid(w, g, run);
    return close_fail(g, rc);
}

/* ---- writing rank<R>/likwid in their layout ---- */

/* One region as write_likwid_results writes it: attrs tag, group_id,
 * group_name, source, event_names, counter_names, metric_names (no
 * event_labels: computed on reading); datasets cpus, times, call_counts,
 * events (E, T), metrics (M, T). Without names from the source its
 * event_names are event_<e> and counter_names is empty, as theirs. */
static int sp_likwid_region(sl_h5w *w, hid_t regs, const sl_region *r, int multi)
{
    char *base = NULL, *name = NULL;
    const char *tag = r->tag;
    size_t len = r->tag_len;
    if (sl_names_sp(&tag, &len, 1, &base) < 0)
        return -ENOMEM;
    int rc = 0;
    if (multi ? asprintf(&name, "%s%%g%" PRId64, base, r->group_id) < 0 : !(name = strdup(base)))
        rc = -ENOMEM;
    free(base);
    htri_t taken = rc ? 0 : H5Lexists(regs, name, H5P_DEFAULT);
    if (!rc && taken) { /* '|' from '/' met a tag that is that name */
        free(name);
        name = sl_name_encode(r->tag, r->tag_len, r->group_id, multi);
        rc = name ? 0 : -ENOMEM;
    }
    hid_t g = rc ? -1 : sl_h5w_group(w, regs, name, 0);
    free(name);
    if (g < 0)
        return rc ? rc : -EIO;
    char **labels = r->has_names ? NULL : sl_event_labels(r);
    if (!r->has_names && r->nevents && !labels)
        rc = -ENOMEM;
    if (!rc)
        rc = sl_h5w_tag(w, g, r->tag, r->tag_len);
    if (!rc)
        rc = sl_h5w_i64(w, g, SL_H5N_group_id, r->group_id);
    if (!rc)
        rc = sl_h5w_str(w, g, SL_H5N_group_name, r->group_name);
    if (!rc)
        rc = sl_h5w_str(w, g, SL_H5N_source, sl_source_name(r->source));
    if (!rc)
        rc = sl_h5w_strv(w, g, SL_H5N_event_names, r->has_names ? r->event_names : labels,
                         r->nevents);
    if (!rc)
        rc = sl_h5w_strv(w, g, SL_H5N_counter_names, r->counter_names,
                         r->has_names ? r->nevents : 0);
    if (!rc)
        rc = sl_h5w_strv(w, g, SL_H5N_metric_names, r->metric_names, r->nmetrics);
    if (!rc) /* the datasets as ours */
        rc = sl_h5w_rows(w, g, SL_H5O_LREG, SL_H5_ROWS_DATA, r, NULL, NULL, 0);
    sl_labels_free(labels, r->nevents);
    H5Gclose(g);
    return rc;
}

/* rank<R>/likwid of their layout, replacing an earlier one: attrs the
 * run's LIKWID_* variables and num_regions, then regions/. Groups and
 * attrs in name order, as h5py creates them. */
int sl_h5w_sp_likwid(sl_h5w *w, hid_t rank_g, const sl_run *run)
{
    const sl_likwid *lw = &run->likwid;
    htri_t had = H5Lexists(rank_g, SL_H5N_likwid, H5P_DEFAULT);
    if (had < 0 || (had > 0 && H5Ldelete(rank_g, SL_H5N_likwid, H5P_DEFAULT) < 0))
        return sl_h5w_fail(w, -EIO, "replace", SL_H5N_likwid);
    hid_t g = sl_h5w_group(w, rank_g, SL_H5N_likwid, 0);
    if (g < 0)
        return -EIO;
    int rc = 0;
    for (size_t i = 0; !rc && i < run->nenv; i++)
        if (run->env[i].name && *run->env[i].name && H5Aexists(g, run->env[i].name) == 0)
            rc = sl_h5w_str(w, g, run->env[i].name, run->env[i].value ? run->env[i].value : "");
    if (!rc)
        rc = sl_h5w_i64(w, g, SL_H5N_num_regions, (int64_t)lw->nregions);
    hid_t regs = rc ? -1 : sl_h5w_group(w, g, SL_H5N_regions, 0);
    if (!rc && regs < 0)
        rc = -EIO;
    unsigned char *multi = rc ? NULL : sl_h5w_multi_groups(lw);
    if (!rc && !multi)
        rc = -ENOMEM;
    for (size_t i = 0; !rc && i < lw->nregions; i++)
        rc = sp_likwid_region(w, regs, &lw->regions[i], multi[i]);
    free(multi);
    if (regs >= 0)
        H5Gclose(regs);
    H5Gclose(g);
    return rc;
}
