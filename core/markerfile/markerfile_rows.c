/* The marker-file reader's region table and row store. Each region keeps
 * its kept value lines as rows (cpu, count, time, line) plus a row-major
 * block of values, grown as lines come, so a region is built and freed as
 * soon as the file is read, never held twice. A cpu may have one row per
 * region: finding a repeat must stay cheap for 100 MB files. */
#include "markerfile_i.h"

#include "vec.h"

#include <stdlib.h>
#include <string.h>

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

/* ---------------------------------------------------------------- duplicates */

/* Rows that come in ascending cpu order (5.2-5.4, and most later files)
 * cannot repeat a cpu: no lookup. Once a region's order breaks, its rows go
 * into a hash set of its own, small and hot in cache while its lines come. */

static size_t hash_cpu(int64_t cpu)
{
    uint64_t h = (uint64_t)cpu;
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return (size_t)h;
}

static void set_put(mf_region *r, int64_t cpu, size_t row)
{
    size_t mask = r->setcap - 1;
    size_t i = hash_cpu(cpu) & mask;
    while (r->set[i].row1)
        i = (i + 1) & mask;
    r->set[i] = (mf_slot){cpu, row + 1};
    r->setn++;
}

/* Room for one more entry, the load kept at most one half. */
static int set_reserve(mf_region *r)
{
    if (r->setn + 1 <= r->setcap / 2)
        return 0;
    size_t cap = r->setcap ? r->setcap * 2 : 16;
    while (r->setn + 1 > cap / 2)
        cap *= 2;
    if (cap > SIZE_MAX / sizeof *r->set)
        return -ENOMEM;
    mf_slot *old = r->set;
    size_t oldcap = r->setcap;
    r->set = calloc(cap, sizeof *r->set);
    if (!r->set) {
        r->set = old;
        return -ENOMEM;
    }
    r->setcap = cap;
    r->setn = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].row1)
            set_put(r, old[i].cpu, old[i].row1 - 1);
    free(old);
    return 0;
}

int sl_mf_find_duplicate(mf_region *r, int64_t cpu, size_t *first)
{
    *first = SIZE_MAX;
    if (r->nrows == 0 || (!r->set && cpu > r->maxcpu))
        return 0;
    if (!r->set) {
        for (size_t i = 0; i < r->nrows; i++)
            if (set_reserve(r) < 0)
                return -ENOMEM;
            else
                set_put(r, r->rows[i].cpu, i);
    }
    size_t mask = r->setcap - 1;
    for (size_t i = hash_cpu(cpu) & mask; r->set[i].row1; i = (i + 1) & mask)
        if (r->set[i].cpu == cpu) {
            *first = r->set[i].row1 - 1;
            break;
        }
    return 0;
}

/* ---------------------------------------------------------------- rows */

int sl_mf_add_row(mf_region *r, int64_t cpu, int64_t count, double time, size_t line,
                  const double *vals)
{
    size_t E = r->nevents;
    if (E && r->nrows >= SIZE_MAX / E)
        return -ENOMEM;
    if (SL_VEC_RESERVE(r->rows, r->caprows, r->nrows, 1) < 0 ||
        SL_VEC_RESERVE(r->vals, r->capvals, r->nrows * E, E) < 0 ||
        (r->set && set_reserve(r) < 0))
        return -ENOMEM;
    size_t row = r->nrows;
    r->rows[row] = (mf_row){cpu, count, time, line};
    if (E)
        memcpy(r->vals + row * E, vals, E * sizeof *vals);
    if (r->set)
        set_put(r, cpu, row);
    if (r->nrows == 0 || cpu > r->maxcpu)
        r->maxcpu = cpu;
    r->nrows++;
    return 0;
}

void sl_mf_free_rows(mf_region *r)
{
    free(r->rows);
    free(r->vals);
    free(r->set);
    r->rows = NULL;
    r->vals = NULL;
    r->set = NULL;
}
