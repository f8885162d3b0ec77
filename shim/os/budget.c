/* The address-space budget of the sample pool and the journal's pieces. */
#include "os.h"

#include <sys/resource.h>

static _Atomic size_t reserved;         /* bytes of the pool's and the journal's mappings */

size_t sl_rt_budget(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return SIZE_MAX;
    return (size_t)(rl.rlim_cur / 4);
}

static int reserve(size_t bytes, size_t limit)
{
    size_t cur = atomic_load(&reserved);
    do
        if (bytes > limit || cur > limit - bytes)
            return 0;
    while (!atomic_compare_exchange_weak(&reserved, &cur, cur + bytes));
    return 1;
}

int sl_rt_reserve(size_t bytes)
{
    return reserve(bytes, sl_rt_budget());
}

void sl_rt_unreserve(size_t bytes)
{
    atomic_fetch_sub(&reserved, bytes);
}
