/* Internal header: not installed. The whole report of scope-likwid plot:
 * for two or more files their comparison first; per file its /metadata,
 * for several ranks the ranks on one time axis and the summary across
 * ranks, the roofline view when the file has a FLOP rate and a memory
 * bandwidth, then per rank a header, region time per thread, the per-call
 * timeline and the chosen counter metrics per region and thread; as
 * XHTML-compatible HTML with inline SVG, or as one standalone SVG. */
#ifndef SL_PLOT_REPORT_H
#define SL_PLOT_REPORT_H

#include <stddef.h>

#include "h5read.h"
#include "plot_buf.h"

/* More ranks than this in a file: in HTML each rank's charts are folded
 * (<details>) behind the summary across ranks. */
#define SL_PLOT_RANKS_OPEN 16

typedef struct sl_plot_file {
    const char *name;       /* as given: shown in headings */
    const sl_runset *set;
} sl_plot_file;

typedef struct sl_plot_opts {
    char *const *metrics;   /* the rows to chart, names as show gives them */
    size_t nmetrics;        /* 0: the default metric (plot_values.h) */
    size_t max_rects;       /* timeline calls drawn per file */
    int svg;                /* 1: standalone SVG, 0: HTML */
} sl_plot_opts;

/* 0 or -ENOMEM. Every metric is expected to exist in the files (cmd_plot
 * checks with show's filter check); a region without it is left out of
 * that chart and counted in its note. */
int sl_plot_report(sl_buf *out, const sl_plot_file *files, size_t nfiles, const sl_plot_opts *opts);

#endif
