/* Internal header: not installed. The views of scope-likwid plot's report
 * that span ranks and files: the ranks on one time axis and the summary
 * across ranks (plot_ranks.c), the roofline view (plot_roofline.c), the
 * comparison of files (plot_compare.c). Each writes its headings, notes
 * and charts to o; 0 or -ENOMEM. */
#ifndef SL_PLOT_RANKS_H
#define SL_PLOT_RANKS_H

#include <stddef.h>

#include "h5read.h"
#include "plot_colours.h"
#include "plot_header.h"
#include "plot_report.h"
#include "plot_timeline.h"

/* "All ranks": every rank's span of recorded calls on ax (chart "spans"),
 * then per timing region the min/mean/max over ranks of a rank's total
 * time in it (its threads summed) with imbalance = (max - mean) / max
 * and the rank of the max (chart "summary"), then per metric, per LIKWID
 * region, min/mean/max over every rank's hardware threads likewise (chart
 * "summary-metric"). */
int sl_plot_ranks_summary(sl_plot_out *o, const sl_runset *set, const sl_tl_axis *ax,
                          const sl_plot_colours *col, char *const *metrics, size_t nmetrics);

/* "Roofline": where set has a FLOP rate ("[MFLOP/s]") and a memory
 * bandwidth ("Memory bandwidth [MBytes/s]") metric, one point per region
 * tag: the FLOP rate summed over ranks and threads against operational
 * intensity = that sum / the bandwidth's sum [FLOP/byte], log-log (chart
 * "roofline", one <circle> per region). The two may come from different
 * groups of one tag (FLOPS_DP and MEM, or MEM_DP alone). Nothing when set
 * has no such pair. */
int sl_plot_roofline(sl_plot_out *o, const sl_runset *set, const sl_plot_colours *col);

/* "Comparison": per timing region the total time (every rank and thread
 * summed) of each file (chart "compare"), per metric and LIKWID region the
 * mean over every rank's hardware threads of each file (chart
 * "compare-metric"); one bar per file, coloured per file, the change
 * relative to the first file beside it. */
int sl_plot_compare(sl_plot_out *o, const sl_plot_file *files, size_t nfiles,
                    const sl_plot_colours *col, char *const *metrics, size_t nmetrics);

#endif
