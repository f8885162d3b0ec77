/* Internal header: not installed. Value axes of the plot charts: "nice"
 * tick steps (1, 2, 5 x 10^k), short number texts, the axis itself. */
#ifndef SL_PLOT_AXIS_H
#define SL_PLOT_AXIS_H

#include "plot_buf.h"

#define SL_PLOT_NUM_BUF 48

/* Step between ticks so that [lo, hi] gets at most max_ticks intervals. */
double sl_plot_tick_step(double lo, double hi, int max_ticks);
/* v with 4 significant digits, no exponent between 1e-4 and 1e9;
 * "nan", "inf", "-inf" as such. */
const char *sl_plot_num(double v, char buf[SL_PLOT_NUM_BUF]);
/* A horizontal value axis for [lo, hi] drawn on x0..x1: tick labels (with
 * unit after the last) at y_label, grid lines from y_top to y_bottom. */
void sl_plot_axis(sl_buf *b, double lo, double hi, double x0, double x1, double y_label,
                  double y_top, double y_bottom, const char *unit);

#endif
