/* Names of rank groups: "rank<R>"; format 1's merge kept the k-th further
 * group of rank R as "rank<R>.<k>" (docs/FORMAT.md). */
#include "h5_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sl_h5_rank_parse(const char *name, int64_t *rank, int64_t *copy)
{
    const size_t pre = sizeof SL_H5N_rank - 1;
    const char *p = name + pre;
    if (strncmp(name, SL_H5N_rank, pre) != 0 || *p < '0' || *p > '9' ||
        (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    long long k = 0;
    if (!errno && *end == '.' && end[1] >= '1' && end[1] <= '9')
        k = strtoll(end + 1, &end, 10);
    if (errno || *end)
        return 0;
    *rank = v;
    *copy = k;
    return 1;
}

void sl_h5_rank_name(char *buf, size_t len, int64_t rank, unsigned copy)
{
    if (copy)
        snprintf(buf, len, SL_H5N_rank "%" PRId64 ".%u", rank, copy);
    else
        snprintf(buf, len, SL_H5N_rank "%" PRId64, rank);
}

static int cmp_rank(const void *a, const void *b)
{
    const sl_h5_rankref *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->copy > y->copy) - (x->copy < y->copy);
}

static int cmp_number(const void *a, const void *b)
{
    const sl_h5_rankref *x = a, *y = b;
    return (x->number > y->number) - (x->number < y->number);
}

void sl_h5_rank_number(sl_h5_rankref *refs, size_t n)
{
    if (n == 0)     /* refs may be NULL then: qsort(NULL, 0) is undefined */
        return;
    qsort(refs, n, sizeof *refs, cmp_rank);
    int64_t next = 0;
    for (size_t i = 0; i < n; i++)
        if (!refs[i].copy && refs[i].rank >= next && refs[i].rank < INT64_MAX)
            next = refs[i].rank + 1;
    for (size_t i = 0; i < n; i++)
        refs[i].number = refs[i].copy ? next++ : refs[i].rank;
    qsort(refs, n, sizeof *refs, cmp_number);
}
