/* The rows of `scope-likwid export`. Columns: fixed ones, then one per event
 * label ("event:LABEL") and one per metric ("metric:NAME") over the whole
 * file, then the matching timing region's figures. Rows: per rank, LIKWID
 * regions by group id (file order within a group), one per thread; then the
 * timing regions that have no LIKWID region with the same tag. */
#include "export_rows.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv_json.h"
#include "labels.h"
#include "mem.h"
#include "names.h"
#include "show_rows.h"
#include "table.h"
#include "schema.h"

static const char *const fixed_cols[] = {
    SL_H5N_rank, SL_H5N_mpi_rank, "rank_group", SL_H5N_pid, SL_H5N_merged_from,
    SL_H5N_merged_from_group, SL_H5N_hostname, SL_H5N_tag, "region", SL_H5N_group_id,
    SL_H5N_group_name, SL_H5N_source, "thread_index", "cpu", "call_count", "time_s",
};
/* the cells run_cells fills; the LIKWID columns follow */
#define NRUN 9
#define NFIXED (sizeof fixed_cols / sizeof fixed_cols[0])
static const char *const timing_cols[] = {
    "timing_threads", "timing_calls", "timing_total_ns", "timing_min_ns", "timing_max_ns",
    "timing_dropped_calls",
};
#define NTIMING (sizeof timing_cols / sizeof timing_cols[0])
/* the figure of show's timing rows (show_rows.h) in each timing column */
static const enum sl_timing_fig_id timing_figs[NTIMING] = {
    SL_TF_THREADS, SL_TF_CALLS, SL_TF_TOTAL, SL_TF_MIN, SL_TF_MAX, SL_TF_DROPPED,
};

enum cell_kind { C_EMPTY, C_INT, C_DBL, C_STR };
typedef struct cell {
    enum cell_kind kind;
    long long i;
    double d;
    const char *s;
} cell;

struct cols {
    size_t n;
    char **v;
};

/* Index of s, added when new; -ENOMEM. */
static long cols_add(struct cols *c, const char *s)
{
    long i = sl_show_find_name(c->v, c->n, s, c->n);
    if (i >= 0)
        return i;
    char **grown = realloc(c->v, (c->n + 1) * sizeof *grown);
    if (!grown)
        return -ENOMEM;
    c->v = grown;
    if (!(grown[c->n] = strdup(s)))
        return -ENOMEM;
    return (long)c->n++;
}

static void cols_free(struct cols *c)
{
    sl_strings_free(c->v, c->n);
}

/* "prefix" + name, or + name + "#" + idx when name is not unique in the
 * region's list (a metric name given twice). */
static char *column_name(const char *prefix, char *const *names, size_t n, size_t idx)
{
    const char *name = names && names[idx] ? names[idx] : "";
    int dup = 0;
    for (size_t i = 0; i < n; i++)
        if (i != idx && !strcmp(names && names[i] ? names[i] : "", name))
            dup = 1;
    size_t len = strlen(prefix) + strlen(name) + 24;
    char *s = malloc(len);
    if (!s)
        return NULL;
    if (dup)
        snprintf(s, len, "%s%s#%zu", prefix, name, idx);
    else
        snprintf(s, len, "%s%s", prefix, name);
    return s;
}

/* A region of the file and where its events and metrics go. */
struct reg {
    size_t run;
    size_t idx;             /* in run's likwid regions */
    int64_t group_id;
    long *ev_col;           /* [E] index among the event columns */
    long *met_col;          /* [M] */
};

static int reg_cmp(const void *a, const void *b)
{
    const struct reg *x = a, *y = b;
    if (x->group_id != y->group_id)
        return x->group_id < y->group_id ? -1 : 1;
    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The column of each of the n names (prefixed) in cols, into col[]. */
static int map_columns(const char *prefix, char **names, size_t n, struct cols *cols, long *col)
{
    for (size_t i = 0; i < n; i++) {
        char *name = column_name(prefix, names, n, i);
        long c = name ? cols_add(cols, name) : -ENOMEM;
        free(name);
        if (c < 0)
            return -ENOMEM;
        col[i] = c;
    }
    return 0;
}

static int map_region(const sl_region *r, struct reg *g, struct cols *ev, struct cols *met)
{
    g->ev_col = calloc(r->nevents ? r->nevents : 1, sizeof *g->ev_col);
    g->met_col = calloc(r->nmetrics ? r->nmetrics : 1, sizeof *g->met_col);
    char **labels = r->nevents ? sl_event_labels(r) : NULL;
    int rc = (!g->ev_col || !g->met_col || (r->nevents && !labels)) ? -ENOMEM : 0;
    /* labels are unique within a region (FORMAT.md, "Event labels") */
    if (!rc)
        rc = map_columns("event:", labels, r->nevents, ev, g->ev_col);
    if (!rc)
        rc = map_columns("metric:", r->metric_names, r->nmetrics, met, g->met_col);
    sl_labels_free(labels, r->nevents);
    return rc;
}

/* ---- output ---------------------------------------------------------------- */

static void put_cell(FILE *f, const cell *c, int json)
{
    char b[SL_NUM_BUF];
    switch (c->kind) {
    case C_EMPTY:
        if (json)
            fputs("null", f);
        break;
    case C_INT:
        fputs(sl_fmt_int(c->i, b), f);
        break;
    case C_DBL:
        if (json && !isfinite(c->d))
            fputs("null", f);
        else
            fputs(sl_fmt_exact(c->d, b), f);
        break;
    case C_STR:
        if (json)
            sl_json_string(f, c->s);
        else
            sl_csv_field(f, c->s);
        break;
    }
}

struct out {
    FILE *f;
    int json;
    size_t ncols;
    char **names;           /* every column, in order */
    char **keys;            /* JSON: each name escaped, with its ':' (once, not per row) */
    cell *cells;
    size_t nrows;
};

static void put_row(struct out *o)
{
    FILE *f = o->f;
    if (o->json)
        fputs(o->nrows ? ",\n{" : "\n{", f);
    for (size_t i = 0; i < o->ncols; i++) {
        if (o->json) {
            if (i)
                fputc(',', f);
            fputs(o->keys[i], f);
        } else if (i) {
            fputc(',', f);
        }
        put_cell(f, &o->cells[i], o->json);
    }
    fputs(o->json ? "}" : "\n", f);
    o->nrows++;
}

/* o->keys[i]: o->names[i] as a JSON string and ':'. 0 or -ENOMEM. */
static int json_keys(struct out *o)
{
    o->keys = calloc(o->ncols, sizeof *o->keys);
    for (size_t i = 0; o->keys && i < o->ncols; i++) {
        size_t len = 0;
        FILE *m = open_memstream(&o->keys[i], &len);
        if (!m)
            return -ENOMEM;
        sl_json_string(m, o->names[i]);
        fputc(':', m);
        if (fclose(m) || !o->keys[i])
            return -ENOMEM;
    }
    return o->keys ? 0 : -ENOMEM;
}

/* ---- rows ------------------------------------------------------------------ */

static const sl_timing_region *timing_of(const sl_run *run, const char *tag, size_t len)
{
    for (size_t i = 0; i < run->timing.nregions; i++) {
        const sl_timing_region *t = &run->timing.regions[i];
        if (t->tag_len == len && !memcmp(t->tag, tag, len))
            return t;
    }
    return NULL;
}

static int has_likwid(const sl_run *run, const char *tag, size_t len)
{
    for (size_t i = 0; i < run->likwid.nregions; i++) {
        const sl_region *r = &run->likwid.regions[i];
        if (r->tag_len == len && !memcmp(r->tag, tag, len))
            return 1;
    }
    return 0;
}

/* The timing columns: per region, over its threads (OS thread ids cannot be
 * matched to LIKWID's CPUs): threads, summed calls and total, min and max
 * over the threads that completed a call, as show's timing rows
 * (show_rows.h). */
static void timing_cells(cell *c, const sl_timing_region *t)
{
    for (size_t i = 0; i < NTIMING; i++)
        c[i] = (cell){.kind = C_EMPTY};
    if (!t)
        return;
    struct tm_sum sum = sl_show_timing_sum(t);
    struct sl_fig fig[SL_TF_N];
    sl_show_timing_figs(t, &sum, fig);
    for (size_t i = 0; i < NTIMING; i++)
        if (fig[timing_figs[i]].kind == SL_FIG_INT)
            c[i] = (cell){.kind = C_INT, .i = fig[timing_figs[i]].i};
}

/* rank ... hostname (host: displayable), tag, region: the cells every row
 * has. The origin's strings are kept as displayable text in o (below). */
struct origin {
    char *group, *from, *from_group, *host;
};

static void run_cells(cell *c, const sl_run *run, const struct origin *org, const char *tag,
                      const char *name)
{
    for (size_t i = 0; i < NFIXED; i++)
        c[i] = (cell){.kind = C_EMPTY};
    c[0] = (cell){.kind = C_INT, .i = run->rank};
    c[1] = (cell){.kind = C_INT, .i = run->mpi_rank};
    c[2] = (cell){.kind = C_STR, .s = org->group};
    c[3] = (cell){.kind = C_INT, .i = run->pid};
    /* not merged: empty (JSON null), as the file has no such attribute */
    if (*org->from)
        c[4] = (cell){.kind = C_STR, .s = org->from};
    if (*org->from_group)
        c[5] = (cell){.kind = C_STR, .s = org->from_group};
    c[6] = (cell){.kind = C_STR, .s = org->host};
    c[7] = (cell){.kind = C_STR, .s = tag};
    c[8] = (cell){.kind = C_STR, .s = name};
}

static void origin_free(struct origin *o)
{
    free(o->group);
    free(o->from);
    free(o->from_group);
    free(o->host);
}

static int origin_of(const sl_run *run, struct origin *o)
{
    o->group = sl_tag_display(run->group, strlen(run->group));
    o->from = sl_tag_display(run->merged_from, strlen(run->merged_from));
    o->from_group = sl_tag_display(run->merged_from_group, strlen(run->merged_from_group));
    o->host = sl_tag_display(run->hostname, strlen(run->hostname));
    if (o->group && o->from && o->from_group && o->host)
        return 0;
    origin_free(o);
    return -ENOMEM;
}

/* multi: the tag occurs with another group id in this run (FORMAT.md names). */
static int multi_group(const sl_likwid *lw, const sl_region *r)
{
    for (size_t i = 0; i < lw->nregions; i++) {
        const sl_region *o = &lw->regions[i];
        if (o->group_id != r->group_id && o->tag_len == r->tag_len && !memcmp(o->tag, r->tag, r->tag_len))
            return 1;
    }
    return 0;
}

static int likwid_rows(struct out *o, const sl_run *run, const struct origin *org, const struct reg *g,
                       size_t nev)
{
    const sl_region *r = &run->likwid.regions[g->idx];
    char *tag = sl_tag_display(r->tag, r->tag_len);
    char *name = sl_name_encode(r->tag, r->tag_len, r->group_id, multi_group(&run->likwid, r));
    char *gname = sl_tag_display(r->group_name, strlen(r->group_name));
    /* every value row of show's model (no --metric here): call count and
     * runtime in their fixed columns, events and metrics in theirs */
    static const sl_show_filter every_row;
    char **labels = r->nevents ? sl_event_labels(r) : NULL;
    struct sl_value_row *rows = NULL;
    long nrows = !r->nevents || labels ? sl_show_value_rows(r, labels, &every_row, &rows) : -ENOMEM;
    int rc = tag && name && gname && nrows >= 0 ? 0 : -ENOMEM;
    const sl_timing_region *tr = timing_of(run, r->tag, r->tag_len);
    cell *c = o->cells;
    for (size_t t = 0; t < r->nthreads && !rc; t++) {
        run_cells(c, run, org, tag, name);
        c[NRUN] = (cell){.kind = C_INT, .i = r->group_id};
        c[NRUN + 1] = (cell){.kind = C_STR, .s = gname};
        c[NRUN + 2] = (cell){.kind = C_STR, .s = sl_source_name(r->source)};
        c[NRUN + 3] = (cell){.kind = C_INT, .i = (long long)t};
        c[NRUN + 4] = (cell){.kind = C_INT, .i = r->cpus[t]};
        for (size_t i = NFIXED; i < o->ncols - NTIMING; i++)
            c[i] = (cell){.kind = C_EMPTY};
        for (long j = 0; j < nrows; j++) {
            const struct sl_value_row *vr = &rows[j];
            size_t at = vr->kind == SL_ROW_CALLS  ? NRUN + 5
                        : vr->kind == SL_ROW_TIME ? NRUN + 6
                        : vr->kind == SL_ROW_EVENT ? NFIXED + (size_t)g->ev_col[vr->index]
                                                   : NFIXED + nev + (size_t)g->met_col[vr->index];
            if (vr->kind == SL_ROW_CALLS)
                c[at] = (cell){.kind = C_INT, .i = r->call_counts[t]};
            else
                c[at] = (cell){.kind = C_DBL, .d = vr->v[t]};
        }
        timing_cells(c + o->ncols - NTIMING, tr);
        put_row(o);
    }
    free(rows);
    sl_labels_free(labels, r->nevents);
    free(tag);
    free(name);
    free(gname);
    return rc;
}

static int timing_rows(struct out *o, const sl_run *run, const struct origin *org)
{
    char **names = NULL; /* the timing regions' group names in the file */
    if (sl_timing_names(&run->timing, &names) < 0)
        return -ENOMEM;
    int rc = 0;
    for (size_t i = 0; !rc && i < run->timing.nregions; i++) {
        const sl_timing_region *t = &run->timing.regions[i];
        if (has_likwid(run, t->tag, t->tag_len))
            continue;
        char *tag = sl_tag_display(t->tag, t->tag_len);
        if (!tag) {
            rc = -ENOMEM;
            break;
        }
        run_cells(o->cells, run, org, tag, names[i]);
        for (size_t k = NFIXED; k < o->ncols - NTIMING; k++)
            o->cells[k] = (cell){.kind = C_EMPTY};
        timing_cells(o->cells + o->ncols - NTIMING, t);
        put_row(o);
        free(tag);
    }
    sl_timing_names_free(names, run->timing.nregions);
    return rc;
}

static int write_rows(struct out *o, const sl_runset *set, const struct reg *regs, size_t nregs,
                      size_t nev)
{
    int rc = 0;
    for (size_t ri = 0; ri < set->nruns && !rc; ri++) {
        const sl_run *run = &set->runs[ri];
        struct origin org;
        if (origin_of(run, &org))
            return -ENOMEM;
        /* regs is sorted by group id, then run: this run's share in that order */
        for (size_t k = 0; k < nregs && !rc; k++)
            if (regs[k].run == ri)
                rc = likwid_rows(o, run, &org, &regs[k], nev);
        if (!rc)
            rc = timing_rows(o, run, &org);
        origin_free(&org);
    }
    return rc;
}

int sl_export_write(FILE *f, const sl_runset *set, enum sl_export_format fmt)
{
    size_t nregs = 0;
    for (size_t i = 0; i < set->nruns; i++)
        nregs += set->runs[i].likwid.nregions;
    struct reg *regs = calloc(nregs ? nregs : 1, sizeof *regs);
    struct cols ev = {0}, met = {0};
    struct out o = {.f = f, .json = fmt == SL_EXPORT_JSON};
    int rc = regs ? 0 : -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < set->nruns && !rc; i++)
        for (size_t j = 0; j < set->runs[i].likwid.nregions; j++, k++)
            regs[k] = (struct reg){.run = i, .idx = j, .group_id = set->runs[i].likwid.regions[j].group_id};
    if (!rc)
        qsort(regs, nregs, sizeof *regs, reg_cmp);
    for (k = 0; k < nregs && !rc; k++)
        rc = map_region(&set->runs[regs[k].run].likwid.regions[regs[k].idx], &regs[k], &ev, &met);
    if (!rc) {
        o.ncols = NFIXED + ev.n + met.n + NTIMING;
        o.names = calloc(o.ncols, sizeof *o.names);
        o.cells = calloc(o.ncols, sizeof *o.cells);
        rc = o.names && o.cells ? 0 : -ENOMEM;
    }
    if (!rc) {
        size_t c = 0;
        for (size_t i = 0; i < NFIXED; i++)
            o.names[c++] = (char *)fixed_cols[i];
        for (size_t i = 0; i < ev.n; i++)
            o.names[c++] = ev.v[i];
        for (size_t i = 0; i < met.n; i++)
            o.names[c++] = met.v[i];
        for (size_t i = 0; i < NTIMING; i++)
            o.names[c++] = (char *)timing_cols[i];
        if (o.json)
            rc = json_keys(&o);
    }
    if (!rc) {
        if (o.json) {
            fputc('[', f);
        } else {
            for (size_t i = 0; i < o.ncols; i++) {
                if (i)
                    fputc(',', f);
                sl_csv_field(f, o.names[i]);
            }
            fputc('\n', f);
        }
        rc = write_rows(&o, set, regs, nregs, ev.n);
        if (o.json)
            fputs(o.nrows ? "\n]\n" : "]\n", f);
    }
    for (k = 0; k < nregs && regs; k++) {
        free(regs[k].ev_col);
        free(regs[k].met_col);
    }
    free(regs);
    sl_strings_free(o.keys, o.ncols);
    free(o.names);
    free(o.cells);
    cols_free(&ev);
    cols_free(&met);
    return rc;
}
