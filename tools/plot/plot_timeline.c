/* Per-call timelines for scope-likwid plot (plot_timeline.h). */
#include "plot_timeline.h"
#include "plot_safe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plot_axis.h"
#include "region_order.h"

#define TOP 36.0        /* time axis labels above the rows */
#define ROW_H 22.0
#define CALL_H 16.0     /* a call at nesting depth 0 */
#define X_ROWS 156.0    /* the time axis starts here */
#define LEGEND_MAX 60   /* entries; the rest are counted */
#define LEGEND_COLS 3

static int64_t duration(const sl_timing_region *r, size_t c)
{
    int64_t d = sl_sub_sat(r->end_times[c], r->start_times[c]);
    return d > 0 ? d : 0;
}

static void swap(int64_t *a, int64_t *b)
{
    int64_t t = *a;
    *a = *b;
    *b = t;
}

/* Rearranges v so that v[k] is what it would be in ascending order
 * (Hoare's selection; median of three against sorted input). */
static int64_t select_kth(int64_t *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < v[lo])
            swap(&v[mid], &v[lo]);
        if (v[hi] < v[lo])
            swap(&v[hi], &v[lo]);
        if (v[hi] < v[mid])
            swap(&v[hi], &v[mid]);
        int64_t pivot = v[mid];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                swap(&v[i], &v[j]);
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return v[k];
}

int sl_plot_tl_select(const sl_runset *set, size_t cap, sl_tl_select *sel)
{
    size_t n = 0;
    for (size_t r = 0; r < set->nruns; r++)
        for (size_t i = 0; i < set->runs[r].timing.nregions; i++)
            n += set->runs[r].timing.regions[i].ncalls;
    *sel = (sl_tl_select){.threshold = -1, .ties = 0};
    if (n <= cap)
        return 0;
    if (cap == 0) {
        sel->threshold = INT64_MAX;
        return 0;
    }
    int64_t *d = malloc(n * sizeof *d);
    if (!d)
        return -ENOMEM;
    size_t k = 0;
    for (size_t r = 0; r < set->nruns; r++)
        for (size_t i = 0; i < set->runs[r].timing.nregions; i++) {
            const sl_timing_region *tr = &set->runs[r].timing.regions[i];
            for (size_t c = 0; c < tr->ncalls; c++)
                d[k++] = duration(tr, c);
        }
    int64_t cut = select_kth(d, n, n - cap); /* the cap-th longest */
    size_t longer = 0;
    for (size_t i = 0; i < n; i++)
        longer += d[i] > cut;
    free(d);
    sel->threshold = cut;
    sel->ties = cap - longer;
    return 0;
}

struct call {
    int64_t start, end;
    size_t row, region, colour;
    int depth;
};

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Row order: start ascending, the enclosing (longer) call first. */
static int cmp_row_time(const void *a, const void *b)
{
    const struct call *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->end < y->end) - (x->end > y->end);
}

/* Drawing order: shallow calls under deep ones; runs of one region. */
static int cmp_draw(const void *a, const void *b)
{
    const struct call *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth - y->depth;
    if (x->region != y->region)
        return x->region < y->region ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* Nesting depth of each call within its row (calls sorted by cmp_row_time). */
static int set_depths(struct call *c, size_t n)
{
    int64_t *open = malloc((n ? n : 1) * sizeof *open);
    if (!open)
        return -ENOMEM;
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && c[i].row != c[i - 1].row)
            depth = 0;
        while (depth && open[depth - 1] <= c[i].start)
            depth--;
        c[i].depth = depth > 3 ? 3 : (int)depth;
        open[depth++] = c[i].end;
    }
    free(open);
    return 0;
}

static double legend(sl_buf *b, const sl_timing *tm, const size_t *drawn_per_region,
                     const sl_plot_colours *colours, double width, double y)
{
    size_t *o = sl_timing_order(tm);    /* the legend lists the costliest first */
    if (!o) {
        b->failed = 1;
        return y;
    }
    double col_w = (width - 8) / LEGEND_COLS;
    size_t shown = 0, more = 0;
    sl_buf_puts(b, "<g class=\"legend\">");
    for (size_t k = 0; k < tm->nregions; k++) {
        const sl_timing_region *r = &tm->regions[o[k]];
        if (!drawn_per_region[o[k]])
            continue;
        if (shown == LEGEND_MAX) {
            more++;
            continue;
        }
        double x = 4 + (double)(shown % LEGEND_COLS) * col_w;
        double yy = y + (double)(shown / LEGEND_COLS) * 16;
        sl_buf_printf(b, "<g><title>");
        sl_buf_tag(b, r->tag, r->tag_len, 400);
        sl_buf_printf(b, "</title><rect class=\"c%zu\" x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\"/>"
                         "<text x=\"%.1f\" y=\"%.1f\">",
                      sl_plot_colour(colours, r->tag, r->tag_len), x, yy, x + 14, yy + 9);
        sl_buf_tag(b, r->tag, r->tag_len, 44);
        sl_buf_puts(b, "</text></g>");
        shown++;
    }
    y += (double)((shown + LEGEND_COLS - 1) / LEGEND_COLS) * 16;
    if (more) {
        sl_buf_printf(b, "<text x=\"4\" y=\"%.1f\">and %zu more regions (legend shows the %d costliest)</text>",
                      y + 9, more, LEGEND_MAX);
        y += 16;
    }
    sl_buf_puts(b, "</g>");
    free(o);
    return y;
}

/* The first start and last end of run's recorded calls on its own clock;
 * 0 when it has none. */
static int run_span(const sl_run *run, int64_t *first, int64_t *last)
{
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (size_t i = 0; i < run->timing.nregions; i++) {
        const sl_timing_region *r = &run->timing.regions[i];
        for (size_t c = 0; c < r->ncalls; c++) {
            int64_t s = r->start_times[c], e = r->end_times[c] > s ? r->end_times[c] : s;
            t0 = s < t0 ? s : t0;
            t1 = e > t1 ? e : t1;
        }
    }
    *first = t0;
    *last = t1;
    return t0 <= t1;
}

void sl_plot_tl_axis(const sl_runset *set, sl_tl_axis *ax)
{
    ax->unix_time = set->nruns > 0;
    for (size_t r = 0; r < set->nruns; r++)
        if (set->runs[r].timing.origin_unix_ns == 0)
            ax->unix_time = 0;
    ax->t0 = INT64_MAX;
    ax->t1 = INT64_MIN;
    for (size_t r = 0; r < set->nruns; r++) {
        int64_t a, z, off = sl_plot_tl_offset(ax, &set->runs[r]);
        if (!run_span(&set->runs[r], &a, &z))
            continue;
        a = sl_add_sat(a, off);
        z = sl_add_sat(z, off);
        ax->t0 = a < ax->t0 ? a : ax->t0;
        ax->t1 = z > ax->t1 ? z : ax->t1;
    }
}

int64_t sl_plot_tl_offset(const sl_tl_axis *ax, const sl_run *run)
{
    return ax->unix_time ? run->timing.origin_unix_ns : 0;
}

/* x of a time on ax's clock. */
static double tl_x(const sl_tl_axis *ax, int64_t t, double x0, double px_per_ns)
{
    return sl_plot_coord(x0 + (double)sl_sub_sat(t, ax->t0) * px_per_ns);
}

static double tl_px_per_ns(const sl_tl_axis *ax, double x0, double x1)
{
    double span = (double)sl_sub_sat(ax->t1, ax->t0);
    return (x1 - x0) / (span > 0 ? span : 1);
}

static void tl_time_axis(sl_buf *b, const sl_tl_axis *ax, double x0, double x1, double y_end)
{
    double span_ms = (double)sl_sub_sat(ax->t1, ax->t0) / 1e6;
    sl_plot_axis(b, 0, span_ms > 0 ? span_ms : 1e-6, x0, x1, 22, TOP - 6, y_end,
                 "ms since the earliest start of any rank");
}

double sl_plot_rank_spans(sl_buf *b, const sl_runset *set, const sl_tl_axis *ax, double width)
{
    if (ax->t0 > ax->t1)
        return 0;
    double row_h = set->nruns <= 64 ? 14.0 : set->nruns <= 256 ? 4.0 : 2.0;
    size_t label_every = set->nruns <= 64 ? 1 : (size_t)(14.0 / row_h) + 1;
    double x1 = width - 16, ppn = tl_px_per_ns(ax, X_ROWS, x1);
    double rows_end = TOP + (double)set->nruns * row_h;
    tl_time_axis(b, ax, X_ROWS, x1, rows_end);
    sl_buf_puts(b, "<g class=\"spans\">");
    for (size_t r = 0; r < set->nruns; r++) {
        const sl_run *run = &set->runs[r];
        double y = TOP + (double)r * row_h;
        if (r % label_every == 0)
            sl_buf_printf(b, "<text class=\"tl\" x=\"%.0f\" y=\"%.1f\">rank %lld</text>", X_ROWS - 8,
                          y + row_h / 2 + 4, (long long)run->rank);
        int64_t a, z;
        if (!run_span(run, &a, &z))
            continue;
        int64_t off = sl_plot_tl_offset(ax, run);
        double xa = tl_x(ax, sl_add_sat(a, off), X_ROWS, ppn), xz = tl_x(ax, sl_add_sat(z, off), X_ROWS, ppn);
        /* a gap between rows where there is room, else every other rank darker */
        double h = row_h > 4 ? row_h - 2 : row_h > 2 ? row_h - 1 : row_h;
        sl_buf_printf(b, "<rect class=\"span%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>"
                         "rank %lld: %.3f to %.3f ms</title></rect>",
                      r % 2 ? " odd" : "", xa, y + (row_h > 4 ? 1 : 0), xz - xa < 0.5 ? 0.5 : xz - xa, h,
                      (long long)run->rank, (double)sl_sub_sat(sl_add_sat(a, off), ax->t0) / 1e6,
                      (double)sl_sub_sat(sl_add_sat(z, off), ax->t0) / 1e6);
    }
    sl_buf_puts(b, "</g>");
    return rows_end + 6;
}

double sl_plot_timeline(sl_buf *b, const sl_run *run, const sl_tl_axis *ax, sl_tl_select *sel,
                        const sl_plot_colours *colours, double width, sl_tl_stats *st)
{
    const sl_timing *tm = &run->timing;
    memset(st, 0, sizeof *st);
    size_t n = 0;
    for (size_t i = 0; i < tm->nregions; i++) {
        n += tm->regions[i].ncalls;
        st->shim_dropped = sl_add_sat(st->shim_dropped, tm->regions[i].dropped_calls);
    }
    st->recorded = n;
    if (!n)
        return 0;

    int64_t *tids = malloc(n * sizeof *tids);
    struct call *calls = malloc(n * sizeof *calls);
    size_t *per_region = calloc(tm->nregions, sizeof *per_region);
    double height = 0;
    if (!tids || !calls || !per_region) {
        b->failed = 1;
        goto out;
    }
    size_t k = 0;
    for (size_t i = 0; i < tm->nregions; i++)
        for (size_t c = 0; c < tm->regions[i].ncalls; c++)
            tids[k++] = tm->regions[i].call_threads[c];
    qsort(tids, n, sizeof *tids, cmp_i64);
    size_t nrows = 0;
    for (size_t i = 0; i < n; i++)
        if (!nrows || tids[i] != tids[nrows - 1])
            tids[nrows++] = tids[i];

    /* the calls to draw, in file order (which the tie rule depends on) */
    size_t m = 0;
    for (size_t i = 0; i < tm->nregions; i++) {
        const sl_timing_region *r = &tm->regions[i];
        size_t colour = sl_plot_colour(colours, r->tag, r->tag_len);
        for (size_t c = 0; c < r->ncalls; c++) {
            int64_t d = duration(r, c);
            if (d < sel->threshold || (d == sel->threshold && !sel->ties))
                continue;
            if (d == sel->threshold)
                sel->ties--;
            const int64_t *row = bsearch(&r->call_threads[c], tids, nrows, sizeof *tids, cmp_i64);
            calls[m++] = (struct call){r->start_times[c], sl_add_sat(r->start_times[c], d),
                                       (size_t)(row - tids), i, colour, 0};
            per_region[i]++;
        }
    }
    st->drawn = m;
    qsort(calls, m, sizeof *calls, cmp_row_time);
    if (set_depths(calls, m)) {
        b->failed = 1;
        goto out;
    }
    qsort(calls, m, sizeof *calls, cmp_draw);

    double x1 = width - 16, px_per_ns = tl_px_per_ns(ax, X_ROWS, x1);
    int64_t off = sl_plot_tl_offset(ax, run);
    double rows_end = TOP + (double)nrows * ROW_H;
    tl_time_axis(b, ax, X_ROWS, x1, rows_end);
    for (size_t r = 0; r < nrows; r++) {
        double y = TOP + (double)r * ROW_H;
        sl_buf_printf(b, "<text class=\"tl\" x=\"%.0f\" y=\"%.1f\">tid %lld</text>", X_ROWS - 8,
                      y + ROW_H / 2 + 4, (long long)tids[r]);
        sl_buf_printf(b, "<line class=\"sep\" x1=\"0\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                      y + ROW_H, width, y + ROW_H);
    }
    sl_buf_puts(b, "<g class=\"calls\">");
    for (size_t i = 0; i < m; i++) {
        const struct call *c = &calls[i];
        if (!i || c->region != calls[i - 1].region || c->depth != calls[i - 1].depth) {
            const sl_timing_region *r = &tm->regions[c->region];
            if (i)
                sl_buf_puts(b, "</g>");
            sl_buf_printf(b, "<g class=\"c%zu\"><title>", c->colour);
            sl_buf_tag(b, r->tag, r->tag_len, 400);
            sl_buf_puts(b, "</title>");
        }
        double h = CALL_H - 6.0 * c->depth;
        h = h < 3 ? 3 : h;
        double x = tl_x(ax, sl_add_sat(c->start, off), X_ROWS, px_per_ns);
        double w = sl_plot_coord(((double)c->end - (double)c->start) * px_per_ns);
        double y = TOP + (double)c->row * ROW_H + (ROW_H - h) / 2;
        sl_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\"/>", x, y,
                      w < 0.5 ? 0.5 : w, h);
    }
    if (m)
        sl_buf_puts(b, "</g>");
    sl_buf_puts(b, "</g>");
    height = legend(b, tm, per_region, colours, width, rows_end + 14) + 6;
out:
    free(tids);
    free(calls);
    free(per_region);
    return height;
}
