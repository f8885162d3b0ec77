/* The marker-file reader's region table and row store, and its one way to
 * report a skipped line. Each region keeps its kept value lines as rows
 * (cpu, count, time, line) plus a row-major block of values, grown as lines
 * come, so a region is built and freed as soon as the file is read, never
 * held twice. */
#include "markerfile_i.h"

#include "vec.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void sl_mf_report(mf_ctx *c, size_t line, const char *fmt, ...)
{
    if (!c->diag)
        return;
    va_list ap;
    va_start(ap, fmt);
    sl_diag_vadd(c->diag, c->name, line, fmt, ap);
    va_end(ap);
}

mf_region *sl_mf_add_slot(mf_ctx *c, size_t line)
{
    if (SL_VEC_RESERVE(c->reg, c->capreg, c->nreg, 1) < 0)
        return NULL;
    mf_region *r = &c->reg[c->nreg++];
    memset(r, 0, sizeof *r);
    r->line = line;
    r->bad = 1;
    return r;
}

/* ---------------------------------------------------------------- rows */

int sl_mf_add_row(mf_region *r, int64_t cpu, int64_t count, double time, size_t line,
                  const double *vals)
{
    size_t E = r->nevents;
    if (E && r->nrows >= SIZE_MAX / E)
        return -ENOMEM;
    if (SL_VEC_RESERVE(r->rows, r->caprows, r->nrows, 1) < 0 ||
        SL_VEC_RESERVE(r->vals, r->capvals, r->nrows * E, E) < 0)
        return -ENOMEM;
    size_t row = r->nrows;
    r->rows[row] = (mf_row){cpu, count, time, line};
    if (E)
        memcpy(r->vals + row * E, vals, E * sizeof *vals);
    r->nrows++;
    return 0;
}

void sl_mf_free_rows(mf_region *r)
{
    free(r->rows);
    free(r->vals);
    r->rows = NULL;
    r->vals = NULL;
}
