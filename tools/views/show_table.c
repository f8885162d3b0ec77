/* `scope-likwid show` as likwid-perfctr-like tables: per event group one
 * column per region and thread, then the shim's timing table. */
#include "show.h"
#include "show_rows.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "run_info.h"
#include "table.h"

/* The table row of a region's value row: header, [call count], [runtime],
 * the group's labels from first, then its metrics; -1 when not shown. */
static long table_row(const struct sl_value_row *vr, const struct group_rows *g, size_t first,
                      int calls_row)
{
    long i;
    switch (vr->kind) {
    case SL_ROW_CALLS:
        return 1;
    case SL_ROW_TIME:
        return 1 + calls_row;
    case SL_ROW_EVENT:
        i = sl_show_find_name(g->labels, g->nlabels, vr->name, vr->index);
        return i < 0 ? -1 : (long)first + i;
    default:
        i = sl_show_find_name(g->metrics, g->nmetrics, vr->name, vr->index);
        return i < 0 ? -1 : (long)(first + g->nlabels) + i;
    }
}

/* 1 when one of the group's metrics has no sum over threads. */
static int nosum_note(const sl_show_filter *flt, const struct group_rows *g)
{
    for (size_t m = 0; m < g->nmetrics; m++)
        if (sl_filter_nosum(flt, g->metrics[m]))
            return 1;
    return 0;
}

static int show_group_table(FILE *f, const sl_show_filter *flt, const sl_show_view *v,
                            char ***labels, const size_t *order, size_t from, size_t to)
{
    const sl_likwid *lw = &v->lw;
    int agg = flt->threads != SL_THREADS_ALL;
    struct group_rows g;
    int rc = sl_show_group_rows(lw, labels, order, from, to, flt, &g);
    if (rc)
        goto out;
    size_t ncols = 1;
    for (size_t k = from; k < to; k++)
        ncols += lw->regions[order[k]].nthreads;
    sl_table t;
    sl_table_init(&t, ncols);
    /* rows: header, [call count], [runtime], labels, metrics (--metric) */
    int calls_row = sl_filter_row(flt, SL_ROW_NAME_CALLS);
    int time_row = sl_filter_row(flt, SL_ROW_NAME_RUNTIME);
    size_t first = 1 + (size_t)calls_row + (size_t)time_row;
    size_t nrows = first + g.nlabels + g.nmetrics;
    for (size_t i = 0; i < nrows; i++)
        if (sl_table_add_row(&t) < 0) {
            rc = -ENOMEM;
            goto table_out;
        }
    rc = sl_table_set(&t, 0, 0, "Region");
    if (calls_row)
        rc |= sl_table_set(&t, 1, 0, SL_ROW_NAME_CALLS);
    if (time_row)
        rc |= sl_table_set(&t, 1 + (size_t)calls_row, 0, SL_ROW_NAME_RUNTIME);
    for (size_t e = 0; e < g.nlabels; e++)
        rc |= sl_table_set(&t, first + e, 0, g.labels[e]);
    for (size_t m = 0; m < g.nmetrics; m++)
        rc |= sl_table_set(&t, first + g.nlabels + m, 0, g.metrics[m]);
    size_t col = 1;
    char num[SL_NUM_BUF];
    for (size_t k = from; k < to && !rc; k++) {
        const sl_region *r = &lw->regions[order[k]];
        char *tag = sl_show_tag(r->tag, r->tag_len, 1);
        struct sl_value_row *rows = NULL;
        long nrows = tag ? sl_show_value_rows(r, labels[order[k]], flt, &rows) : -ENOMEM;
        if (nrows < 0) {
            free(tag);
            rc = -ENOMEM;
            break;
        }
        /* where each of the region's rows sits in the group's table */
        for (size_t th = 0; th < r->nthreads; th++, col++) {
            if (agg)
                rc |= sl_table_setf(&t, 0, col, "%s [%s]", tag, sl_threads_name(flt->threads));
            else if (r->nthreads > 1)
                rc |= sl_table_setf(&t, 0, col, "%s@cpu%lld", tag, (long long)r->cpus[th]);
            else
                rc |= sl_table_set(&t, 0, col, tag);
            for (long j = 0; j < nrows; j++) {
                const struct sl_value_row *vr = &rows[j];
                long row = table_row(vr, &g, first, calls_row);
                if (row < 0)
                    continue;
                if (vr->kind == SL_ROW_CALLS && agg)
                    rc |= sl_table_set(&t, 1, col, sl_fmt_value(v->calls[order[k]], num));
                else if (vr->kind == SL_ROW_CALLS)
                    rc |= sl_table_set(&t, 1, col, sl_fmt_int(r->call_counts[th], num));
                else if (vr->kind != SL_ROW_METRIC || !sl_filter_nosum(flt, vr->name))
                    rc |= sl_table_set(&t, (size_t)row, col, sl_fmt_value(vr->v[th], num));
            }
        }
        free(rows);
        free(tag);
    }
    if (!rc)
        rc = sl_table_print(f, &t, 1);
    if (!rc && nosum_note(flt, &g))
        fputs("[sum]: a metric without a sum over threads (a time, clock, CPI, ratio) has "
              "no value (-); --threads mean gives it\n",
              f);
table_out:
    sl_table_free(&t);
out:
    sl_show_group_rows_free(&g);
    return rc ? -ENOMEM : 0;
}

/* Milliseconds to the nanosecond, without trailing zeros (no exponents:
 * "2e-05" reads badly in a table). */
static void ms_cell(sl_table *t, size_t row, size_t col, double ns)
{
    char b[64];
    snprintf(b, sizeof b, "%.6f", ns / 1e6);
    char *dot = strchr(b, '.');
    if (dot) {
        char *e = b + strlen(b);
        while (e > dot + 1 && e[-1] == '0')
            *--e = '\0';
        if (e == dot + 1)
            *dot = '\0';
    }
    sl_table_set(t, row, col, b);
}

static int show_timing_table(FILE *f, const sl_timing *tm)
{
    fprintf(f, "Timing (%s, clock %s)\n", tm->recorder ? tm->recorder : "scope-likwid",
            tm->clock && *tm->clock ? tm->clock : "unknown");
    if (!tm->nregions) {
        fputs("no timed regions\n", f);
        return 0;
    }
    struct tm_sum *s = sl_show_timing_order(tm);
    if (!s)
        return -ENOMEM;
    /* the problem counters (SL_TF_DROPPED on) get a column when any region
     * has one; its heading is the figure's name with blanks */
    int shown[SL_TF_N] = {0};
    size_t ncols = 7;
    for (size_t i = 0; i < tm->nregions; i++) {
        struct sl_fig fig[SL_TF_N];
        sl_show_timing_figs(&tm->regions[s[i].idx], &s[i], fig);
        for (size_t k = SL_TF_DROPPED; k < SL_TF_N; k++)
            shown[k] |= fig[k].i != 0;
    }
    for (size_t k = SL_TF_DROPPED; k < SL_TF_N; k++)
        ncols += (size_t)shown[k];
    sl_table t;
    sl_table_init(&t, ncols);
    int rc = 0;
    if (sl_table_add_row(&t) < 0) {
        rc = -ENOMEM;
        goto out;
    }
    static const char *const head[] = {"Region", "threads", "calls", "total [ms]", "mean [ms]",
                                       "min [ms]", "max [ms]"};
    for (size_t c = 0; c < 7; c++)
        sl_table_set(&t, 0, c, head[c]);
    size_t c = 7;
    for (size_t k = SL_TF_DROPPED; k < SL_TF_N; k++) {
        if (!shown[k])
            continue;
        char name[32];
        snprintf(name, sizeof name, "%s", sl_timing_fig_names[k]);
        for (char *p = name; *p; p++)
            if (*p == '_')
                *p = ' ';
        sl_table_set(&t, 0, c++, name);
    }
    for (size_t i = 0; i < tm->nregions; i++) {
        const sl_timing_region *r = &tm->regions[s[i].idx];
        long row = sl_table_add_row(&t);
        char *tag = sl_show_tag(r->tag, r->tag_len, 1);
        if (row < 0 || !tag) {
            free(tag);
            rc = -ENOMEM;
            goto out;
        }
        size_t ro = (size_t)row;
        sl_table_set(&t, ro, 0, tag);
        free(tag);
        struct sl_fig fig[SL_TF_N];
        sl_show_timing_figs(r, &s[i], fig);
        sl_table_setf(&t, ro, 1, "%lld", fig[SL_TF_THREADS].i);
        sl_table_setf(&t, ro, 2, "%lld", fig[SL_TF_CALLS].i);
        ms_cell(&t, ro, 3, (double)fig[SL_TF_TOTAL].i);
        if (fig[SL_TF_MEAN].kind == SL_FIG_DBL)
            ms_cell(&t, ro, 4, fig[SL_TF_MEAN].d);
        for (size_t k = SL_TF_MIN; k <= SL_TF_MAX; k++)
            if (fig[k].kind == SL_FIG_INT)
                ms_cell(&t, ro, 5 + k - SL_TF_MIN, (double)fig[k].i);
        c = 7;
        for (size_t k = SL_TF_DROPPED; k < SL_TF_N; k++)
            if (shown[k])
                sl_table_setf(&t, ro, c++, "%lld", fig[k].i);
    }
    rc = sl_table_print(f, &t, 1);
out:
    sl_table_free(&t);
    free(s);
    return rc;
}

int sl_show_run_table(FILE *f, const sl_run *run, const sl_show_filter *flt, const sl_show_view *v)
{
    char *status = sl_show_tag(run->likwid_status, strlen(run->likwid_status), 1);
    char *title = sl_info_rank_title(run, run->executable);
    if (!status || !title) {
        free(status);
        free(title);
        return -ENOMEM;
    }
    fprintf(f, "%s\n", title);
    free(title);
    fprintf(f, "LIKWID status: %s\n", status);
    free(status);
    int rc = 0;
    const sl_likwid *lw = &v->lw;
    if (lw->source == SL_SOURCE_NONE) {
        fputs("LIKWID: no counter data\n", f);
    } else {
        fprintf(f, "LIKWID counters (source %s)\n", sl_source_name(lw->source));
        size_t *order;
        char ***labels;
        rc = sl_show_order(lw, &order, &labels);
        if (!rc && !lw->nregions)
            fputs("no regions\n", f);
        for (size_t k = 0; k < lw->nregions && !rc;) {
            size_t end = sl_show_group_end(lw, order, k);
            const sl_region *first = &lw->regions[order[k]];
            fprintf(f, "Group %lld", (long long)first->group_id);
            if (first->group_name && *first->group_name)
                fprintf(f, ": %s", first->group_name);
            fputc('\n', f);
            rc = show_group_table(f, flt, v, labels, order, k, end);
            k = end;
        }
        sl_show_order_free(lw, order, labels);
    }
    if (!rc)
        rc = show_timing_table(f, &v->tm);
    return rc;
}
