/* The views across the ranks of one file (plot_ranks.h): the ranks on one
 * time axis and min/mean/max per region over ranks. */
#include "plot_ranks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_axis.h"
#include "plot_bars.h"
#include "plot_values.h"

/* One bar group per key: max, mean, min of its first stat, the rank of
 * the max, the imbalance and the number of values beside them; unit names
 * the axis. */
static int stat_chart(sl_plot_out *o, const sl_plot_keys *k, const sl_plot_colours *col,
                      const char *cls, const char *unit, const char *counted)
{
    sl_bar_group *g = calloc(k->n ? k->n : 1, sizeof *g);
    sl_bar *bars = calloc(k->n ? 3 * k->n : 1, sizeof *bars);
    if (!g || !bars) {
        free(g);
        free(bars);
        return -ENOMEM;
    }
    size_t ng = 0;
    char num[SL_PLOT_NUM_BUF];
    for (size_t i = 0; i < k->n; i++) {
        const sl_plot_key *e = &k->v[i];
        const sl_plot_stat *st = &e->stats[0];
        if (!st->n)
            continue;
        sl_bar *b = &bars[3 * ng];
        g[ng++] = (sl_bar_group){.tag = e->tag, .tag_len = e->tag_len, .sub = e->sub,
                                 .colour = sl_plot_colour(col, e->tag, e->tag_len), .nbars = 3, .bars = b};
        snprintf(b[0].label, sizeof b[0].label, "max (rank %lld)", (long long)st->max_rank);
        b[0].value = st->max;
        snprintf(b[0].note, sizeof b[0].note, "imbalance %s%%", sl_plot_num(sl_plot_stat_imbalance(st), num));
        snprintf(b[1].label, sizeof b[1].label, "mean");
        b[1].value = sl_plot_stat_mean(st);
        snprintf(b[1].note, sizeof b[1].note, "(%zu %s)", st->n, counted);
        snprintf(b[2].label, sizeof b[2].label, "min");
        b[2].value = st->min;
    }
    if (ng) {
        sl_buf body;
        sl_buf_init(&body);
        double h = sl_plot_bars(&body, g, ng, SL_PLOT_WIDTH, unit);
        sl_plot_chart(o, cls, &body, h);
        sl_buf_free(&body);
    }
    free(bars);
    free(g);
    return 0;
}

static int time_summary(sl_plot_out *o, const sl_runset *set, const sl_plot_colours *col)
{
    sl_plot_keys k;
    if (sl_plot_keys_init(&k, sl_plot_region_count(set), 1))
        return -ENOMEM;
    int rc = sl_plot_keys_add_times(&k, set, 0, 1);
    if (!rc) {
        sl_plot_keys_sort(&k);
        if (sl_plot_section(o, "Region time across ranks", k.n, "No timed regions.",
                            "Per timing region: min, mean and max over the ranks that ran it of "
                            "a rank's total time in it (its threads summed); imbalance = (max - "
                            "mean) / max. Costliest first."))
            rc = stat_chart(o, &k, col, "summary", "total per rank [ms]", "ranks");
    }
    sl_plot_keys_free(&k);
    return rc;
}

static int metric_summary(sl_plot_out *o, const sl_runset *set, const sl_plot_colours *col,
                          const char *metric)
{
    sl_plot_keys k;
    if (sl_plot_keys_init(&k, sl_plot_region_count(set), 1))
        return -ENOMEM;
    int rc = sl_plot_keys_add_row(&k, set, metric, 0, 0);
    if (!rc && k.n) {
        char t[300];
        snprintf(t, sizeof t, "Counters across ranks: %s", metric);
        sl_plot_heading(o, 3, t);
        sl_plot_note(o, "Per LIKWID region: min, mean and max over every rank's hardware threads; "
                        "imbalance = (max - mean) / max. In the order of the file.");
        rc = stat_chart(o, &k, col, "summary-metric", metric, "threads");
    }
    sl_plot_keys_free(&k);
    return rc;
}

int sl_plot_ranks_summary(sl_plot_out *o, const sl_runset *set, const sl_tl_axis *ax,
                          const sl_plot_colours *col, char *const *metrics, size_t nmetrics)
{
    sl_plot_heading(o, 2, "All ranks");
    sl_plot_heading(o, 3, "Ranks on one time axis");
    if (ax->t0 > ax->t1) {
        sl_plot_note(o, "No per-call samples in any rank.");
    } else {
        sl_plot_note(o, ax->unix_time
                            ? "Each rank from its first recorded start to its last end, aligned on "
                              "Unix time (the ranks' origin_unix_ns); the per-rank timelines below "
                              "share this axis."
                            : "Each rank from its first recorded start to its last end, on the "
                              "ranks' clock values as recorded (some rank has no origin_unix_ns: "
                              "ranks on different hosts may not line up); the per-rank timelines "
                              "below share this axis.");
        sl_buf body;
        sl_buf_init(&body);
        double h = sl_plot_rank_spans(&body, set, ax, SL_PLOT_WIDTH);
        sl_plot_chart(o, "spans", &body, h);
        sl_buf_free(&body);
    }
    int rc = time_summary(o, set, col);
    for (size_t m = 0; m < nmetrics && !rc; m++)
        rc = metric_summary(o, set, col, metrics[m]);
    return rc;
}
