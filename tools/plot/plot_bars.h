/* Internal header: not installed. Horizontal bar chart of scope-likwid plot:
 * one group of bars per region (one bar per thread), one scale for all. */
#ifndef SL_PLOT_BARS_H
#define SL_PLOT_BARS_H

#include <stddef.h>

#include "plot_buf.h"

typedef struct sl_bar {
    char label[40];         /* e.g. "tid 1234", "cpu 3" */
    double value;           /* not finite: no bar, "no value" */
    char note[48];          /* shown with the value, e.g. "20 calls" ("" none) */
    const char *cls;        /* the rect's CSS class; NULL: the group's colour */
} sl_bar;

typedef struct sl_bar_group {
    const char *tag;        /* region tag: any bytes */
    size_t tag_len;
    const char *sub;        /* shown after the tag in brackets (NULL: none) */
    size_t colour;          /* colour index (plot_colours.h) */
    size_t nbars;
    sl_bar *bars;
} sl_bar_group;

/* Draws the groups in the given order as SVG elements (no <svg> wrapper)
 * of the given width, starting at y = 0, with a value axis labelled unit.
 * Every bar with a finite value is exactly one <rect>; the chart draws no
 * other rects. Returns the height used. */
double sl_plot_bars(sl_buf *b, const sl_bar_group *groups, size_t ngroups, double width,
                    const char *unit);

#endif
