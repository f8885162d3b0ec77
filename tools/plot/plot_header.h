/* Internal header: not installed. The text parts of scope-likwid plot's
 * report (plot_header.c), shared by HTML and SVG: headings, notes, the
 * charts' frames, the report's /metadata and each rank's header. */
#ifndef SL_PLOT_HEADER_H
#define SL_PLOT_HEADER_H

#include "h5read.h"
#include "plot_buf.h"

#define SL_PLOT_WIDTH 1100.0

typedef struct sl_plot_out {
    sl_buf *b;
    int svg;
    double y;           /* SVG: where the next element goes */
} sl_plot_out;

void sl_plot_heading(sl_plot_out *o, int level, const char *text);
/* A line of text (any bytes; cut in SVG, which cannot wrap). */
void sl_plot_note(sl_plot_out *o, const char *text);
/* A section's heading, then the note none when it has no item (n == 0),
 * else the note about; whether it has items (a chart to draw). */
int sl_plot_section(sl_plot_out *o, const char *heading, size_t n, const char *none,
                    const char *about);
/* An inline <svg> of class cls holding body. */
void sl_plot_chart(sl_plot_out *o, const char *cls, const sl_buf *body, double height);
/* The file's /metadata as a table of its known fields (nothing without
 * /metadata), and a rank's title (its origin, as show prints it) and
 * attributes. 0 or -ENOMEM. */
int sl_plot_meta_header(sl_plot_out *o, const sl_file_meta *m);
int sl_plot_rank_header(sl_plot_out *o, const sl_run *run);
/* "Rank 3 (group rank3, mpi_rank 0, pid 12, host h, from F:G)", as show's
 * title (run_info.c), strings displayed; malloc'd, NULL on ENOMEM. */
char *sl_plot_rank_title(const sl_run *run);

#endif
