/* The run's metadata for /metadata (docs/FORMAT.md): what scope-profiler's
 * run metadata holds, from the environment and the run's own timing. */
#include "run_meta.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output_path.h"
#include "parse_int.h"


static _Atomic int64_t start_ns = -1;

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void sl_run_meta_start(void)
{
    start_ns = mono_ns();
}

/* A positive integer at the start of s (up to a ',' for OMP_NUM_THREADS's
 * list of nesting levels), else -1. */
static int64_t leading_count(const char *s)
{
    if (!s)
        return -1;
    char buf[24];
    size_t n = strcspn(s, ",");
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    long long v;
    return sl_parse_i64(buf, &v) == 0 && v > 0 ? v : -1;
}

/* Distinct threads that entered any region (1 when none did): an
 * open-addressing set, since every region repeats the same few threads
 * (1000 regions x 64 threads: a qsort of the 64000 ids cost more than the
 * rest of Close's own work). */
static int64_t threads_seen(const sl_timing *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nregions; i++)
        n += t->regions[i].nthreads;
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    int64_t *slot = malloc(cap * sizeof *slot);
    unsigned char *used = calloc(cap, 1);
    if (!slot || !used) {
        free(slot);
        free(used);
        return -1;
    }
    int64_t distinct = 0;
    for (size_t i = 0; i < t->nregions; i++)
        for (size_t j = 0; j < t->regions[i].nthreads; j++) {
            int64_t id = t->regions[i].threads[j];
            size_t h = (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1);
            while (used[h] && slot[h] != id)
                h = (h + 1) & (cap - 1);
            if (!used[h]) {
                used[h] = 1;
                slot[h] = id;
                distinct++;
            }
        }
    free(slot);
    free(used);
    return distinct ? distinct : 1;
}

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
static int64_t openmp_threads(const sl_timing *t)
{
    int64_t v = leading_count(getenv("OMP_NUM_THREADS"));
    if (v > 0)
        return v;
    int (*max_threads)(void) = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    memcpy(&max_threads, &sym, sizeof max_threads); /* void* to function: -Wpedantic */
    if (max_threads && (v = max_threads()) > 0)
        return v;
    v = cpus_allowed();
    return v > 0 ? v : threads_seen(t);
}

/* start <= every recorded start, finalize >= every recorded end (the hot
 * path's clock may be the TSC converted to CLOCK_MONOTONIC). */
static void bounds(const sl_timing *t, int64_t *start, int64_t *fin)
{
    for (size_t i = 0; i < t->nregions; i++) {
        const sl_timing_region *r = &t->regions[i];
        for (size_t c = 0; c < r->ncalls; c++) {
            if (r->start_times[c] < *start)
                *start = r->start_times[c];
            if (r->end_times[c] > *fin)
                *fin = r->end_times[c];
        }
    }
}

/* From the environment only: getpwuid_r could load NSS modules (LDAP,
 * sssd) into the application. */
static void user_name(sl_run_meta *m)
{
    const char *u = getenv("USER");
    if (!u || !*u)
        u = getenv("LOGNAME");
    if (u && *u)
        sl_set_string(&m->user, u);
}

static void add_var(void *meta, const char *name, const char *value)
{
    sl_run_meta_add_var(meta, name, value);
}

void sl_run_meta_fill(sl_run *run)
{
    sl_run_meta *m = &run->meta;
    /* Outside MPI 1; in MPI the launcher's (-1 when it says none). */
    m->mpi_size = run->mpi_rank >= 0 ? sl_world_size_from_env() : 1;
    m->omp_num_threads = openmp_threads(&run->timing);
    int64_t fin = mono_ns();
    m->start_time_ns = start_ns >= 0 ? start_ns : fin;
    m->finalize_time_ns = fin;
    bounds(&run->timing, &m->start_time_ns, &m->finalize_time_ns);
    char *cwd = getcwd(NULL, 0);
    if (cwd)
        sl_set_string(&m->working_directory, cwd);
    free(cwd);
    user_name(m);
    sl_each_env("SLURM_", add_var, m);
}
