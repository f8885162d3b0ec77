/* Which run of the base file `scope-likwid diff` compares with which run of
 * the new one (diff.h). Group numbers say little once files are merged (a
 * merge renumbers clashing groups, and merging merged files again shifts
 * them), so runs are paired by their origin first:
 *   1. (mpi_rank, basename of merged_from, merged_from_group) when that key
 *      is unique in both files: the same run of the same input, wherever
 *      the merges put it (basename: the same job merged from another
 *      directory still pairs);
 *   2. the others by MPI rank: the k-th such run of mpi_rank M in one file
 *      (in group-number order) with the k-th of the other;
 *   3. what is left by group number (a serial run against a one-rank MPI
 *      run: rank0 with rank0). */
#include "diff.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int same_origin(const sl_run *a, const sl_run *b)
{
    return a->mpi_rank == b->mpi_rank && !strcmp(base_name(a->merged_from), base_name(b->merged_from)) &&
           !strcmp(a->merged_from_group, b->merged_from_group);
}

/* How many runs of s have run's origin; the last one in *at. */
static size_t origin_count(const sl_runset *s, const sl_run *run, size_t *at)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nruns; i++)
        if (same_origin(&s->runs[i], run)) {
            n++;
            *at = i;
        }
    return n;
}

/* The k-th run of s with this mpi_rank among those free[] still marks. */
static size_t kth_free(const sl_runset *s, const unsigned char *free_, int64_t mpi_rank, size_t k)
{
    for (size_t i = 0; i < s->nruns; i++)
        if (free_[i] && s->runs[i].mpi_rank == mpi_rank && k-- == 0)
            return i;
    return SIZE_MAX;
}

int sl_diff_pair(const sl_runset *base, const sl_runset *new_, size_t **to_new)
{
    size_t nb = base->nruns, nn = new_->nruns;
    size_t *pair = malloc((nb ? nb : 1) * sizeof *pair);
    unsigned char *bfree = malloc(nb ? nb : 1), *nfree = malloc(nn ? nn : 1);
    unsigned char *bsnap = malloc(nb ? nb : 1), *nsnap = malloc(nn ? nn : 1);
    int rc = pair && bfree && nfree && bsnap && nsnap ? 0 : -ENOMEM;
    if (rc)
        goto out;
    memset(bfree, 1, nb);
    memset(nfree, 1, nn);
    for (size_t i = 0; i < nb; i++) {
        const sl_run *b = &base->runs[i];
        size_t at = 0, mine = 0;
        pair[i] = SIZE_MAX;
        if (origin_count(base, b, &mine) == 1 && origin_count(new_, b, &at) == 1) {
            pair[i] = at;
            bfree[i] = nfree[at] = 0;
        }
    }
    /* 2: occurrences counted among the runs step 1 left, on both sides */
    memcpy(bsnap, bfree, nb);
    memcpy(nsnap, nfree, nn);
    for (size_t i = 0; i < nb; i++) {
        if (!bsnap[i])
            continue;
        size_t k = 0;
        for (size_t j = 0; j < i; j++)
            k += bsnap[j] && base->runs[j].mpi_rank == base->runs[i].mpi_rank;
        size_t at = kth_free(new_, nsnap, base->runs[i].mpi_rank, k);
        if (at != SIZE_MAX) {
            pair[i] = at;
            bfree[i] = nfree[at] = 0;
        }
    }
    for (size_t i = 0; i < nb; i++)
        for (size_t j = 0; bfree[i] && j < nn; j++)
            if (nfree[j] && new_->runs[j].rank == base->runs[i].rank) {
                pair[i] = j;
                bfree[i] = nfree[j] = 0;
            }
out:
    free(bfree);
    free(nfree);
    free(bsnap);
    free(nsnap);
    if (rc) {
        free(pair);
        pair = NULL;
    }
    *to_new = pair;
    return rc;
}
