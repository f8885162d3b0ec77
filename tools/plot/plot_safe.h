/* Internal header: not installed. Arithmetic on whatever a result file
 * holds: int64 sums and differences saturate (sat.h), and a
 * coordinate written into the SVG is always a finite number (a NaN or an
 * infinity from the file, or from a span that overflowed, is drawn at the
 * edge, never written as "nan"). */
#ifndef SL_PLOT_SAFE_H
#define SL_PLOT_SAFE_H

#include <math.h>
#include <stdint.h>

#include "sat.h"

/* A coordinate for the SVG: finite and within +-1e7 px. */
static inline double sl_plot_coord(double v)
{
    if (isnan(v))
        return 0;
    return v > 1e7 ? 1e7 : v < -1e7 ? -1e7 : v;
}

#endif
