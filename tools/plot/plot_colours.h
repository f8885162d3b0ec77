/* Internal header: not installed. One colour per region tag, the same in
 * every chart and every rank of a report (CSS class "c<index>"). */
#ifndef SL_PLOT_COLOURS_H
#define SL_PLOT_COLOURS_H

#include <stddef.h>

#include "h5read.h"
#include "plot_buf.h"

typedef struct sl_plot_colours {
    size_t n;           /* distinct tags */
    size_t nslots;      /* hash table size (power of two) */
    struct sl_colour_slot {
        const char *tag;        /* borrowed from the runset */
        size_t len;
        size_t index;
    } *slots;
} sl_plot_colours;

/* Indices in order of first appearance: each rank's timing regions
 * costliest first, then its LIKWID regions, file after file. 0 or -ENOMEM. */
int sl_plot_colours_build(sl_plot_colours *c, const sl_runset *const *sets, size_t nsets);
void sl_plot_colours_free(sl_plot_colours *c);
/* Index of a tag (0 for a tag never seen). */
size_t sl_plot_colour(const sl_plot_colours *c, const char *tag, size_t len);
/* CSS rules ".cI{fill:#RRGGBB}" for every index, and ".fI" for the files
 * of a comparison (SL_PLOT_FILE_COLOURS, then again from the first). */
void sl_plot_colours_css(const sl_plot_colours *c, sl_buf *b);

#define SL_PLOT_FILE_COLOURS 6

#endif
