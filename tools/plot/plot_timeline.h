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

/* The one time axis of a file's timelines: every rank's calls on a common
 * clock (its clock value plus its origin_unix_ns when every rank of the
 * file recorded one, else the clock values as they are), from the earliest
 * recorded start of any rank (t0) to the latest end (t1). */
typedef struct sl_tl_axis {
    int unix_time;          /* 1: aligned on Unix time (origin_unix_ns) */
    int64_t t0, t1;         /* on the common clock; t0 > t1: no recorded call */
} sl_tl_axis;

void sl_plot_tl_axis(const sl_runset *set, sl_tl_axis *ax);
/* What to add to run's clock values to place them on ax's common clock. */
int64_t sl_plot_tl_offset(const sl_tl_axis *ax, const sl_run *run);

typedef struct sl_tl_stats {
    size_t recorded;        /* calls with per-call samples in the file */
    size_t drawn;
    int64_t shim_dropped;   /* calls the shim counted but kept no sample of */
} sl_tl_stats;

/* Draws one run's timeline as SVG elements (no <svg> wrapper) of the given
 * width from y = 0: a time axis in ms from ax's t0 (the same for every
 * rank of the file, so a late rank's calls start further right), a row
 * per thread, the drawn calls (inside <g class="calls">, one <rect> each;
 * nested calls thinner), a legend of the regions drawn (<g class="legend">).
 * Run the runs in file order: sel's ties are used up as calls are drawn.
 * Returns the height used (0 when the run has no per-call samples). */
double sl_plot_timeline(sl_buf *b, const sl_run *run, const sl_tl_axis *ax, sl_tl_select *sel,
                        const sl_plot_colours *colours, double width, sl_tl_stats *st);

/* The ranks of a file on ax: one row per rank (labelled with its rank), one
 * <rect class="span"> from its first recorded start to its last end, inside
 * <g class="spans">. Returns the height used (0 when no rank has calls). */
double sl_plot_rank_spans(sl_buf *b, const sl_runset *set, const sl_tl_axis *ax, double width);

#endif
