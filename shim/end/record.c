/* The run record and its /metadata: identity, LIKWID_* variables, every
 * thread's timing, the process's facts at Close. */
#include "end.h"
#include "fileio.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void add_env(void *run, const char *name, const char *value)
{
    sl_run_add_env(run, name, value);
}

void sl_run_record_fill(sl_run *run, const sl_deliver_in *in, sl_likwid *lw,
                        const char *status)
{
    run->rank = in->rank;
    run->mpi_rank = in->mpi ? in->rank : -1;
    run->pid = in->pid;
    run->parent_pid = in->parent_pid;
    if (in->likwid_version)
        sl_set_string(&run->likwid_version, in->likwid_version);
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) == 0)
        sl_set_string(&run->hostname, host);
    sl_provenance_set(run, &sl_g.prov);
    if (sl_g.run_id)
        sl_set_string(&run->meta.run_id, sl_g.run_id);
    char *exe = realpath("/proc/self/exe", NULL);
    if (exe)
        sl_set_string(&run->executable, exe);
    free(exe);
    /* without SCOPE_LIKWID_ARGS: the program's name only */
    char *cmd = sl_read_text("/proc/self/cmdline", 1 << 20,
                             SL_TEXT_NUL_TO_BLANK | (sl_g.cfg.keep_args ? 0 : SL_TEXT_FIRST_ONLY));
    if (!cmd)
        cmd = strdup("");
    if (cmd)
        sl_set_string(&run->command_line, cmd);
    free(cmd);
    sl_each_env("LIKWID_", add_env, run);
    sl_set_string(&run->timing.clock, "CLOCK_MONOTONIC");
    run->timing.origin_unix_ns = in->origin_unix_ns;
    if (sl_rt_collect(&run->timing) != 0)
        sl_log_warn("out of memory while collecting the region timing: some regions are missing");
    sl_run_meta_fill(run);  /* /metadata: needs mpi_rank and the timing above */
    /* The counters move into the run. */
    sl_likwid_free(&run->likwid);
    run->likwid = *lw;
    sl_likwid_init(lw);
    sl_set_string(&run->likwid_status, status);
}

/* The run's metadata for /metadata (docs/FORMAT.md): what scope-profiler's
 * run metadata holds, from the environment and the run's own timing. */
static _Atomic int64_t start_ns = -1;

void sl_run_meta_start(void)
{
    start_ns = sl_clock_ns(CLOCK_MONOTONIC);
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

static int64_t openmp_threads(const sl_timing *t)
{
    int64_t v = sl_omp_threads_known();
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

/* The real uid at Init, and its name when Init looked it up (for a %u):
 * otherwise the writer names it (user_name.h). Never USER or LOGNAME,
 * which anybody may set to anybody's name. */
static void user_name(sl_run_meta *m)
{
    m->uid = sl_g.uid;
    if (sl_g.user)
        sl_set_string(&m->user, sl_g.user);
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
    int64_t fin = sl_clock_ns(CLOCK_MONOTONIC);
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
