/* Internal header: not installed. `scope-likwid show`: a result file as
 * likwid-perfctr-like tables, CSV or JSON. All three carry the same data in
 * the same order: per rank, LIKWID regions by group id, costliest first
 * (sum over threads of LIKWID's times), then the shim's timing regions,
 * costliest first (total ns). */
#ifndef SL_SHOW_H
#define SL_SHOW_H

#include <stdio.h>
#include "h5read.h"
#include "show_filter.h"

typedef enum sl_show_format { SL_SHOW_TABLE, SL_SHOW_CSV, SL_SHOW_JSON } sl_show_format;

/* Writes the runs of set that flt selects; path is the file's name as the
 * JSON output quotes it. 0 or negative errno (-ENOMEM, -EIO when f could
 * not be written). */
int sl_show_write(FILE *f, const sl_runset *set, const char *path, sl_show_format fmt,
                  const sl_show_filter *flt);

#endif
