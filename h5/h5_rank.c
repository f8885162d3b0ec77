/* Names of rank groups: "rank<R>", and "rank<R>.<k>" for the k-th further
 * group of rank R that `scope-likwid merge` keeps (docs/FORMAT.md). */
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
