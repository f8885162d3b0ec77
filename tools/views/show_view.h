/* Internal header: not installed. The filtered view of one run that the
 * table, CSV and JSON emitters of `scope-likwid show` print. */
#ifndef SL_SHOW_VIEW_H
#define SL_SHOW_VIEW_H

#include <stddef.h>

#include "run.h"
#include "show_filter.h"

/* A run's LIKWID regions and timing regions after the filters. lw holds
 * copies (aggregated to one thread unless threads == all); src[i] is the
 * index in run->likwid of lw.regions[i]; calls[i] the aggregated call count
 * (a mean need not be whole). */
typedef struct sl_show_view {
    sl_likwid lw;
    size_t *src;
    double *calls;
    sl_timing tm;
} sl_show_view;

/* Builds the view of one run. 0 or -ENOMEM. */
int sl_show_view_build(const sl_show_filter *f, const sl_run *run, sl_show_view *v);
void sl_show_view_free(sl_show_view *v);

#endif
