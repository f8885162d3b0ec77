/* Process facts read where they are needed: the OpenMP threads as far as
 * they are known without the timing, the CPUs the process may run on. */
#include "ground.h"
#include "parse_int.h"

#include <errno.h>
#include <sched.h>
#include <string.h>

/* The CPUs the process may run on (what an OpenMP runtime defaults its
 * thread count to), -1 when the kernel does not say. */
static int64_t cpus_allowed(void)
{
    for (int ncpu = 1024; ncpu <= 1 << 20; ncpu *= 4) {
        cpu_set_t *set = CPU_ALLOC((size_t)ncpu);
        if (!set)
            return -1;
        size_t size = CPU_ALLOC_SIZE((size_t)ncpu);
        int got = sched_getaffinity(0, size, set) == 0 ? CPU_COUNT_S(size, set) : -1;
        int too_small = got < 0 && errno == EINVAL;
        CPU_FREE(set);
        if (!too_small)
            return got > 0 ? got : -1;
    }
    return -1;
}

/* scope-profiler's omp_num_threads, so that one process run under both tools
 * reports one value: the first value of OMP_NUM_THREADS, else the OpenMP
 * runtime's omp_get_max_threads() when the application has one loaded
 * (looked up, never loaded: loading it would change the application), else
 * the CPUs the process may run on (the runtime's default), else the
 * threads seen. */
int64_t sl_omp_threads_known(void)
{
    int64_t v = sl_leading_count(sl_env(SL_ENV_OMP_NUM_THREADS), 1);
    if (v > 0)
        return v;
    int (*max_threads)(void) = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    memcpy(&max_threads, &sym, sizeof max_threads); /* void* to function: -Wpedantic */
    if (max_threads && (v = max_threads()) > 0)
        return v;
    return cpus_allowed();
}
