/* Internal header: not installed. Event labels (spec hdf5-layout.md, "Event
 * labels"): a name that occurs once is its own label; a repeated name gets
 * ":" + counter name, or "#" + index when there is no counter name; regions
 * without names get "event_<e>". */
#ifndef SL_LABELS_H
#define SL_LABELS_H

#include "likwid_result.h"
#include "mem.h"

/* The names of a LIKWID region's two value rows that are neither events
 * nor metrics: its call count and LIKWID's seconds (sl_region.times), as
 * show, export and plot name them (--metric takes them). */
#define SL_ROW_NAME_CALLS "call count"
#define SL_ROW_NAME_RUNTIME "runtime [s]"

/* Returns a newly allocated array of r->nevents newly allocated strings, or
 * NULL on allocation failure (or when nevents is 0: then *out_n is 0 too).
 * Free with sl_labels_free. */
char **sl_event_labels(const sl_region *r);
static inline void sl_labels_free(char **labels, size_t n)
{
    sl_strings_free(labels, n);
}

/* The values (one per thread) of r's metric named name, else of its event
 * labelled name: 1 and *row set, 0 when r has neither, -ENOMEM. */
int sl_region_row(const sl_region *r, const char *name, const double **row);

#endif
