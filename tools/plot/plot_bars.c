/* Horizontal bar charts for scope-likwid plot (plot_bars.h). */
#include "plot_bars.h"
#include "plot_safe.h"

#include <math.h>
#include <string.h>

#include "plot_axis.h"

#define ROW_H 14.0      /* one bar */
#define BAR_H 10.0
#define GAP_H 8.0       /* between regions */
#define TOP 36.0        /* axis labels above the first group */
#define X_THREAD 336.0  /* thread labels end here */
#define X_BARS 344.0    /* bars start here */
#define VALUE_W 170.0   /* value column at the right */

/* Rows of a group: one per bar, and one for the bracketed line of a
 * one-bar group. */
static double group_h(const sl_bar_group *g)
{
    size_t rows = g->nbars + (g->sub && *g->sub && g->nbars < 2);
    return (double)rows * ROW_H + GAP_H;
}

double sl_plot_bars(sl_buf *b, const sl_bar_group *groups, size_t ngroups, double width,
                    const char *unit)
{
    double lo = 0, hi = 0;
    for (size_t g = 0; g < ngroups; g++)
        for (size_t i = 0; i < groups[g].nbars; i++) {
            double v = groups[g].bars[i].value;
            if (isfinite(v)) {
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
        }
    if (!(hi > lo))
        hi = lo + 1;
    /* round the scale's ends out to ticks so the grid frames the bars */
    double step = sl_plot_tick_step(lo, hi, 8);
    lo = floor(lo / step) * step;
    hi = ceil(hi / step) * step;
    double x1 = width - VALUE_W, span = hi - lo;
    double x_zero = X_BARS + (0 - lo) / span * (x1 - X_BARS);

    double height = TOP;
    for (size_t g = 0; g < ngroups; g++)
        height += group_h(&groups[g]);
    sl_plot_axis(b, lo, hi, X_BARS, x1, 22, TOP - 6, height, unit);

    double y = TOP;
    char num[SL_PLOT_NUM_BUF];
    for (size_t g = 0; g < ngroups; g++) {
        const sl_bar_group *gr = &groups[g];
        double y_next = y + group_h(gr);
        sl_buf_puts(b, "<g class=\"region\"><title>");
        sl_buf_tag(b, gr->tag, gr->tag_len, 400);
        if (gr->sub && *gr->sub) {
            sl_buf_puts(b, " [");
            sl_buf_text(b, gr->sub, strlen(gr->sub), 100);
            sl_buf_puts(b, "]");
        }
        sl_buf_printf(b, "</title><line class=\"sep\" x1=\"0\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                      y - GAP_H / 2, width, y - GAP_H / 2);
        sl_buf_printf(b, "<text class=\"rl\" x=\"4\" y=\"%.1f\">", y + BAR_H);
        sl_buf_tag(b, gr->tag, gr->tag_len, 36);
        sl_buf_puts(b, "</text>");
        if (gr->sub && *gr->sub) {
            sl_buf_printf(b, "<text class=\"sub\" x=\"4\" y=\"%.1f\">[", y + BAR_H + ROW_H);
            sl_buf_text(b, gr->sub, strlen(gr->sub), 36);
            sl_buf_puts(b, "]</text>");
        }
        for (size_t i = 0; i < gr->nbars; i++, y += ROW_H) {
            const sl_bar *bar = &gr->bars[i];
            sl_buf_printf(b, "<text class=\"tl\" x=\"%.0f\" y=\"%.1f\">", X_THREAD, y + BAR_H - 1);
            sl_buf_text(b, bar->label, strlen(bar->label), 0);
            sl_buf_puts(b, "</text>");
            if (isfinite(bar->value)) {
                double xv = X_BARS + (bar->value - lo) / span * (x1 - X_BARS);
                double x = sl_plot_coord(xv < x_zero ? xv : x_zero);
                double w = sl_plot_coord(fabs(xv - x_zero));
                if (bar->cls)
                    sl_buf_printf(b, "<rect class=\"%s\"", bar->cls);
                else
                    sl_buf_printf(b, "<rect class=\"c%zu\"", gr->colour);
                sl_buf_printf(b, " x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\"/>", x, y, w, BAR_H);
                sl_buf_printf(b, "<text class=\"v\" x=\"%.0f\" y=\"%.1f\">%s", x1 + 6, y + BAR_H - 1,
                              sl_plot_num(bar->value, num));
            } else {
                sl_buf_printf(b, "<text class=\"v\" x=\"%.0f\" y=\"%.1f\">no value", x1 + 6, y + BAR_H - 1);
            }
            if (bar->note[0]) {
                sl_buf_puts(b, " ");
                sl_buf_text(b, bar->note, strlen(bar->note), 0);
            }
            sl_buf_puts(b, "</text>");
        }
        y = y_next;
        sl_buf_puts(b, "</g>");
    }
    return height + 4;
}
