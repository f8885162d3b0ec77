/* Internal header: not installed. `scope-likwid export`: a result file as
 * one flat table, one row per (rank, region, group, thread), as CSV or JSON.
 * The columns and their order are documented in cmd_export.c's help and
 * README.md ("Reading results: show and export"). */
#ifndef SL_EXPORT_ROWS_H
#define SL_EXPORT_ROWS_H

#include <stdio.h>
#include "h5read.h"

enum sl_export_format { SL_EXPORT_CSV, SL_EXPORT_JSON };

/* Writes every row of set to f. 0 or negative errno (-ENOMEM). Write errors
 * are left for the caller to see with ferror/fflush. */
int sl_export_write(FILE *f, const sl_runset *set, enum sl_export_format fmt);

#endif
