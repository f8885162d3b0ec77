/* Internal header: not installed. `scope-likwid show`'s renderers: a
 * result file's run as likwid-perfctr-like tables, CSV or JSON. All three
 * carry the same data in the same order: per rank, LIKWID regions by group id, costliest first
 * (sum over threads of LIKWID's times), then the shim's timing regions,
 * costliest first (total ns). */
#ifndef SL_SHOW_H
#define SL_SHOW_H

#include <stdio.h>

#include "h5read.h"
#include "run_info.h"
#include "show_filter.h"
#include "show_view.h"

typedef enum sl_show_format { SL_SHOW_TABLE, SL_SHOW_CSV, SL_SHOW_JSON } sl_show_format;

/* The renderers of one run (show_table.c, show_csv.c, show_json.c): the
 * leaves that `scope-likwid show` (cmd_show.c) calls per rank, in the
 * order and with the rows of show_rows.h. 0 or -ENOMEM. */
int sl_show_run_table(FILE *f, const sl_run *run, const sl_show_filter *flt,
                      const sl_show_view *v);
/* meta: the file's /metadata (run_info.h), written on every rank's rows */
int sl_show_run_csv(FILE *f, const sl_run *run, const sl_show_filter *flt,
                    const sl_show_view *v, const sl_infos *meta);
int sl_show_run_json(FILE *f, const sl_run *run, const sl_show_filter *flt,
                     const sl_show_view *v);
/* "name":value,... of infos (unknown values null), without braces */
void sl_show_json_infos(FILE *f, const sl_infos *in);

#endif
