/* Internal header: not installed. The whole report of scope-likwid plot:
 * per rank a header, region time per thread, the per-call timeline and one
 * counter metric per region and thread, as XHTML-compatible HTML with
 * inline SVG, or as one standalone SVG. */
#ifndef SL_PLOT_REPORT_H
#define SL_PLOT_REPORT_H

#include <stddef.h>

#include "h5read.h"
#include "plot_buf.h"

typedef struct sl_plot_opts {
    const char *title;      /* the input's name, shown in the header */
    const char *metric;     /* NULL: the first metric, or "runtime" */
    size_t max_rects;       /* timeline calls drawn in the whole report */
    int svg;                /* 1: standalone SVG, 0: HTML */
} sl_plot_opts;

/* 0, -ENOMEM, or -ENOENT when opts->metric names no metric, event,
 * "runtime" or "call count" of any region (a line on stderr says so). */
int sl_plot_report(sl_buf *out, const sl_runset *set, const sl_plot_opts *opts);

#endif
