/* Internal header: not installed. The per-call timeline (Gantt chart) of
 * scope-likwid plot: one row per thread, one rect per recorded call. */
#ifndef SL_PLOT_TIMELINE_H
#define SL_PLOT_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "h5read.h"
#include "plot_buf.h"
#include "plot_colours.h"

/* Which recorded calls get drawn: with more than cap calls in the whole
 * file, the cap longest (ties in file order). */
typedef struct sl_tl_select {
    int64_t threshold;      /* calls longer than this are drawn... */
    size_t ties;            /* ...and this many more of exactly this length */
} sl_tl_select;

int sl_plot_tl_select(const sl_runset *set, size_t cap, sl_tl_select *sel);

typedef struct sl_tl_stats {
    size_t recorded;        /* calls with per-call samples in the file */
    size_t drawn;
    int64_t shim_dropped;   /* calls the shim counted but kept no sample of */
} sl_tl_stats;

/* Draws one run's timeline as SVG elements (no <svg> wrapper) of the given
 * width from y = 0: a time axis in ms from the run's earliest start, a row
 * per thread, the drawn calls (inside <g class="calls">, one <rect> each;
 * nested calls thinner), a legend of the regions drawn (<g class="legend">).
 * Run the runs in file order: sel's ties are used up as calls are drawn.
 * Returns the height used (0 when the run has no per-call samples). */
double sl_plot_timeline(sl_buf *b, const sl_run *run, sl_tl_select *sel,
                        const sl_plot_colours *colours, double width, sl_tl_stats *st);

#endif
