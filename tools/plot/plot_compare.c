/* Files compared side by side (plot_ranks.h): per region one bar per file,
 * the change relative to the first file beside it. */
#include "plot_ranks.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_axis.h"
#include "plot_bars.h"
#include "plot_values.h"

static const char *const file_cls[SL_PLOT_FILE_COLOURS] = {"f0", "f1", "f2", "f3", "f4", "f5"};

/* stat f of key: its total (sum) or its mean. */
static double file_value(const sl_plot_key *e, size_t f, int mean)
{
    const sl_plot_stat *st = &e->stats[f];
    if (!st->n)
        return NAN;
    return mean ? sl_plot_stat_mean(st) : st->sum;
}

static int compare_chart(sl_plot_out *o, const sl_plot_keys *k, size_t nfiles,
                         const sl_plot_colours *col, int mean, const char *cls, const char *unit)
{
    sl_bar_group *g = calloc(k->n ? k->n : 1, sizeof *g);
    sl_bar *bars = calloc(k->n ? k->n * nfiles : 1, sizeof *bars);
    if (!g || !bars) {
        free(g);
        free(bars);
        return -ENOMEM;
    }
    char num[SL_PLOT_NUM_BUF];
    for (size_t i = 0; i < k->n; i++) {
        const sl_plot_key *e = &k->v[i];
        sl_bar *b = &bars[i * nfiles];
        g[i] = (sl_bar_group){.tag = e->tag, .tag_len = e->tag_len, .sub = e->sub,
                              .colour = sl_plot_colour(col, e->tag, e->tag_len), .nbars = nfiles, .bars = b};
        double base = file_value(e, 0, mean);
        for (size_t f = 0; f < nfiles; f++) {
            b[f].value = file_value(e, f, mean);
            b[f].cls = file_cls[f % SL_PLOT_FILE_COLOURS];
            snprintf(b[f].label, sizeof b[f].label, "file %zu", f + 1);
            if (f && isfinite(b[f].value) && isfinite(base) && base != 0) {
                double pct = (b[f].value - base) / fabs(base) * 100;
                snprintf(b[f].note, sizeof b[f].note, "(%s%s%%)", pct > 0 ? "+" : "", sl_plot_num(pct, num));
            } else if (f && isfinite(b[f].value) && !isfinite(base)) {
                snprintf(b[f].note, sizeof b[f].note, "(not in file 1)");
            }
        }
    }
    if (k->n) {
        sl_buf body;
        sl_buf_init(&body);
        double h = sl_plot_bars(&body, g, k->n, SL_PLOT_WIDTH, unit);
        sl_plot_chart(o, cls, &body, h);
        sl_buf_free(&body);
    }
    free(bars);
    free(g);
    return 0;
}

static size_t all_regions(const sl_plot_file *files, size_t nfiles)
{
    size_t n = 0;
    for (size_t f = 0; f < nfiles; f++)
        n += sl_plot_region_count(files[f].set);
    return n;
}

static int compare_times(sl_plot_out *o, const sl_plot_file *files, size_t nfiles,
                         const sl_plot_colours *col)
{
    sl_plot_keys k;
    if (sl_plot_keys_init(&k, all_regions(files, nfiles), nfiles))
        return -ENOMEM;
    int rc = 0;
    for (size_t f = 0; f < nfiles && !rc; f++)
        rc = sl_plot_keys_add_times(&k, files[f].set, f, f == 0);
    if (!rc) {
        sl_plot_keys_sort(&k);
        if (sl_plot_section(o, "Region time", k.n, "No timed regions in any file.",
                            "Per timing region, each file's total time in it (every rank and "
                            "thread summed), the change relative to file 1 in brackets; "
                            "costliest in file 1 first."))
            rc = compare_chart(o, &k, nfiles, col, 0, "compare", "total [ms]");
    }
    sl_plot_keys_free(&k);
    return rc;
}

static int compare_metric(sl_plot_out *o, const sl_plot_file *files, size_t nfiles,
                          const sl_plot_colours *col, const char *metric)
{
    sl_plot_keys k;
    if (sl_plot_keys_init(&k, all_regions(files, nfiles), nfiles))
        return -ENOMEM;
    int rc = 0;
    for (size_t f = 0; f < nfiles && !rc; f++)
        rc = sl_plot_keys_add_row(&k, files[f].set, metric, f, 0);
    if (!rc) {
        char t[300];
        snprintf(t, sizeof t, "Counters: %s", metric);
        if (sl_plot_section(o, t, k.n, "No region of any file has this value.",
                            "Per LIKWID region, each file's mean over every rank's hardware "
                            "threads, the change relative to file 1 in brackets; in the order of "
                            "the files."))
            rc = compare_chart(o, &k, nfiles, col, 1, "compare-metric", metric);
    }
    sl_plot_keys_free(&k);
    return rc;
}

int sl_plot_compare(sl_plot_out *o, const sl_plot_file *files, size_t nfiles,
                    const sl_plot_colours *col, char *const *metrics, size_t nmetrics)
{
    sl_plot_heading(o, 2, "Comparison");
    int rc = compare_times(o, files, nfiles, col);
    for (size_t m = 0; m < nmetrics && !rc; m++)
        rc = compare_metric(o, files, nfiles, col, metrics[m]);
    return rc;
}
