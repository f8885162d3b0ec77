/* Value axes for scope-likwid plot (plot_axis.h). */
#include "plot_axis.h"
#include "plot_safe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double sl_plot_tick_step(double lo, double hi, int max_ticks)
{
    double span = hi - lo;
    if (!(span > 0) || !isfinite(span))
        return 1;
    double raw = span / (max_ticks > 0 ? max_ticks : 1);
    double p = pow(10, floor(log10(raw)));
    static const double m[] = {1, 2, 5, 10};
    for (size_t i = 0; i < 4; i++)
        if (m[i] * p >= raw)
            return m[i] * p;
    return 10 * p;
}

const char *sl_plot_num(double v, char buf[SL_PLOT_NUM_BUF])
{
    if (isnan(v))
        return strcpy(buf, "nan");
    if (isinf(v))
        return strcpy(buf, v > 0 ? "inf" : "-inf");
    double a = fabs(v);
    if (a == 0)
        return strcpy(buf, "0");
    if (a >= 1e-4 && a < 1e9) {
        /* 4 significant digits, written without exponent */
        int dec = 3 - (int)floor(log10(a));
        if (dec < 0)
            dec = 0;
        snprintf(buf, SL_PLOT_NUM_BUF, "%.*f", dec, v);
        if (strchr(buf, '.')) {
            char *e = buf + strlen(buf);
            while (e[-1] == '0')
                *--e = '\0';
            if (e[-1] == '.')
                e[-1] = '\0';
        }
        return buf;
    }
    snprintf(buf, SL_PLOT_NUM_BUF, "%.3g", v);
    return buf;
}

void sl_plot_axis(sl_buf *b, double lo, double hi, double x0, double x1, double y_label,
                  double y_top, double y_bottom, const char *unit)
{
    double step = sl_plot_tick_step(lo, hi, 8);
    double span = hi > lo ? hi - lo : 1;
    char num[SL_PLOT_NUM_BUF];
    sl_buf_puts(b, "<g class=\"axis\">");
    double first = ceil(lo / step - 1e-9) * step;
    for (int i = 0; i < 64; i++) {
        double v = first + i * step;
        if (v > hi + step * 1e-9)
            break;
        if (fabs(v) < step * 1e-9)
            v = 0;
        double x = sl_plot_coord(x0 + (v - lo) / span * (x1 - x0));
        sl_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, y_top, x,
                      y_bottom);
        sl_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", x, y_label,
                      sl_plot_num(v, num));
    }
    if (unit && *unit) {
        sl_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"unit\">", x1,
                      y_label - 12);
        sl_buf_text(b, unit, strlen(unit), 60);
        sl_buf_puts(b, "</text>");
    }
    sl_buf_puts(b, "</g>");
}
