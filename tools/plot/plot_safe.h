/* Internal header: not installed. Arithmetic on whatever a result file
 * holds: int64 sums and differences saturate instead of overflowing, and a
 * coordinate written into the SVG is always a finite number (a NaN or an
 * infinity from the file, or from a span that overflowed, is drawn at the
 * edge, never written as "nan"). */
#ifndef SL_PLOT_SAFE_H
#define SL_PLOT_SAFE_H

#include <math.h>
#include <stdint.h>

static inline int64_t sl_sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_add_overflow(a, b, &r))
        return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

static inline int64_t sl_sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_sub_overflow(a, b, &r))
        return r;
    return b < 0 ? INT64_MAX : INT64_MIN;
}

/* A coordinate for the SVG: finite and within +-1e7 px. */
static inline double sl_plot_coord(double v)
{
    if (isnan(v))
        return 0;
    return v > 1e7 ? 1e7 : v < -1e7 ? -1e7 : v;
}

#endif
