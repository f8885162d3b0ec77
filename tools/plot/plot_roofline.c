/* The roofline view (plot_ranks.h): per region tag the FLOP rate against
 * operational intensity, both on log scales. */
#include "plot_ranks.h"
#include "plot_safe.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_axis.h"
#include "plot_values.h"

#define FLOP_NEEDLE "[MFLOP/s]"
#define BW_NEEDLE "Memory bandwidth [MBytes/s]"
#define X0 90.0         /* plot area */
#define Y0 30.0
#define PLOT_H 360.0
#define RIGHT 260.0     /* room for the point labels */

/* Decades [*lo, *hi] (powers of ten) around [a, b], at least one apart. */
static void decades(double a, double b, double *lo, double *hi)
{
    *lo = floor(log10(a));
    *hi = ceil(log10(b));
    if (*hi <= *lo)
        *hi = *lo + 1;
}

static double log_pos(double v, double lo, double hi, double p0, double p1)
{
    return sl_plot_coord(p0 + (log10(v) - lo) / (hi - lo) * (p1 - p0));
}

/* Grid lines at 1..9 x every decade from lo to hi (decades), labelled at
 * 1, 2, 5: vertical ones (x axis) at y_label below, else horizontal. */
static void decade_lines(sl_buf *b, double lo, double hi, int vertical, double p0, double p1,
                         double q0, double q1)
{
    char num[SL_PLOT_NUM_BUF];
    for (double d = lo; d <= hi + 1e-9; d++)
        for (int m = 1; m < 10 && (m == 1 || d < hi - 1e-9); m++) {
            double v = m * pow(10, d), p = log_pos(v, lo, hi, p0, p1);
            const char *cls = m == 1 ? "" : " class=\"minor\"";
            if (vertical)
                sl_buf_printf(b, "<line%s x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", cls, p, q0, p, q1);
            else
                sl_buf_printf(b, "<line%s x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", cls, q0, p, q1, p);
            if (m != 1 && m != 2 && m != 5)
                continue;
            if (vertical)
                sl_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", p, q1 + 14);
            else
                sl_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", q0 - 6, p + 4);
            sl_buf_printf(b, "%s</text>", sl_plot_num(v, num));
        }
}

static void grid(sl_buf *b, double xlo, double xhi, double ylo, double yhi, double x1, double y1)
{
    sl_buf_puts(b, "<g class=\"axis\">");
    decade_lines(b, xlo, xhi, 1, X0, x1, Y0, y1);
    decade_lines(b, ylo, yhi, 0, y1, Y0, X0, x1);
    sl_buf_printf(b, "<text class=\"unit\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">operational intensity "
                     "[FLOP/byte]</text>", x1, y1 + 30);
    sl_buf_printf(b, "<text class=\"unit\" x=\"4\" y=\"%.1f\">[MFLOP/s]</text>", Y0 - 12);
    sl_buf_puts(b, "</g>");
}

static void points(sl_buf *b, const sl_plot_keys *k, const sl_plot_colours *col, const char *flop,
                   const char *bw)
{
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    for (size_t i = 0; i < k->n; i++) {
        double f = k->v[i].stats[0].sum, m = k->v[i].stats[1].sum;
        xmin = fmin(xmin, f / m);
        xmax = fmax(xmax, f / m);
        ymin = fmin(ymin, f);
        ymax = fmax(ymax, f);
    }
    double xlo, xhi, ylo, yhi, x1 = SL_PLOT_WIDTH - RIGHT, y1 = Y0 + PLOT_H;
    decades(xmin, xmax, &xlo, &xhi);
    decades(ymin, ymax, &ylo, &yhi);
    grid(b, xlo, xhi, ylo, yhi, x1, y1);
    char n1[SL_PLOT_NUM_BUF], n2[SL_PLOT_NUM_BUF], n3[SL_PLOT_NUM_BUF];
    sl_buf_puts(b, "<g class=\"points\">");
    for (size_t i = 0; i < k->n; i++) {
        const sl_plot_key *e = &k->v[i];
        double f = e->stats[0].sum, m = e->stats[1].sum;
        double x = log_pos(f / m, xlo, xhi, X0, x1), y = log_pos(f, ylo, yhi, y1, Y0);
        /* the title: the tag, then the numbers (the label shows the tag) */
        sl_buf_puts(b, "<g class=\"point\"><title>");
        sl_buf_tag(b, e->tag, e->tag_len, 400);
        sl_buf_printf(b, "\n%s FLOP/byte, %s ", sl_plot_num(f / m, n1), sl_plot_num(f, n2));
        sl_buf_text(b, flop, strlen(flop), 0);
        sl_buf_printf(b, ", %s ", sl_plot_num(m, n3));
        sl_buf_text(b, bw, strlen(bw), 0);
        sl_buf_printf(b, "</title><circle class=\"c%zu\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\"/>"
                         "<text x=\"%.1f\" y=\"%.1f\">",
                      sl_plot_colour(col, e->tag, e->tag_len), x, y, x + 9, y + 4);
        sl_buf_tag(b, e->tag, e->tag_len, 28);
        sl_buf_printf(b, " (%s FLOP/B)</text></g>", n1);
    }
    sl_buf_puts(b, "</g>");
}

int sl_plot_roofline(sl_plot_out *o, const sl_runset *set, const sl_plot_colours *col)
{
    const char *flop = sl_plot_find_metric(set, FLOP_NEEDLE), *bw = sl_plot_find_metric(set, BW_NEEDLE);
    if (!flop || !bw)
        return 0;
    sl_plot_keys k;
    if (sl_plot_keys_init(&k, sl_plot_region_count(set), 2))
        return -ENOMEM;
    /* both rows of a tag, whichever group holds them */
    int rc = sl_plot_keys_add_row(&k, set, flop, 0, 1);
    if (!rc)
        rc = sl_plot_keys_add_row(&k, set, bw, 1, 1);
    /* a point needs a positive rate and bandwidth */
    size_t kept = 0, left_out = 0;
    for (size_t i = 0; i < k.n; i++) {
        const sl_plot_stat *st = k.v[i].stats;
        if (st[0].n && st[1].n && st[0].sum > 0 && st[1].sum > 0 && isfinite(st[0].sum / st[1].sum)) {
            k.v[kept] = k.v[i];
            kept++;
        } else {
            left_out++;
        }
    }
    k.n = kept;
    if (!rc) {
        sl_plot_heading(o, 3, "Roofline: FLOP rate against operational intensity");
        char t[500];
        int n = snprintf(t, sizeof t, "Per region: \"%s\" summed over ranks and threads against that sum / "
                         "\"%s\" summed likewise (log scales)", flop, bw);
        if (left_out)
            snprintf(t + n, sizeof t - (size_t)n, "; %zu region%s without both values above 0 not shown",
                     left_out, left_out == 1 ? "" : "s");
        sl_plot_note(o, t);
        if (kept) {
            sl_buf body;
            sl_buf_init(&body);
            points(&body, &k, col, flop, bw);
            sl_plot_chart(o, "roofline", &body, Y0 + PLOT_H + 40);
            sl_buf_free(&body);
        }
    }
    sl_plot_keys_free(&k);
    return rc;
}
