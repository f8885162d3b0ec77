/* The marker API as the shim answers it: timing of every region, the
 * hazards of likwid-api.md kept away from LIKWID, everything else forwarded
 * to LIKWID's real C functions. One path for C and Fortran callers. */
#include "shim.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "log.h"
#include "output_path.h"
#include "real.h"
#include "sources.h"
#include "run_meta.h"
#include "region_table.h"
#include "survive.h"

#define RELAXED memory_order_relaxed

sl_state sl_g;
_Atomic int sl_mode = SL_MODE_IDLE;
_Atomic int sl_in_real_init;
_Atomic int sl_next_group_calls;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* LIKWID's Start and Stop for the hot path (stand-ins until LIKWID's Init
 * has been forwarded), set before the mode becomes ACTIVE and again when a
 * LIKWID found later is initialised; relaxed loads (a plain move). */
static _Atomic sl_rt_fwd real_start, real_stop;
/* LIKWID's Init was forwarded in ACTIVE mode: its Get may be asked. */
static _Atomic int likwid_live;

/* LIKWID's part when the application is not linked with LIKWID. Stop only
 * runs after the shim found the region open (or could not judge, having no
 * memory for a table: then -EFAULT, as before). */
static int no_likwid_start(const char *tag)
{
    (void)tag;
    return 0;
}

static int no_likwid_stop(const char *tag)
{
    (void)tag;
    return sl_rt_have_table() ? 0 : -EFAULT;
}

static int mode(void)
{
    return atomic_load_explicit(&sl_mode, RELAXED);
}

/* The mode for an entry point that times: a forked child becomes a
 * process of its own here (fork.c). The others pass a FORKED child's calls
 * through, as for one that never called Init. */
static int mode_timing(void)
{
    int m = mode();
    return m == SL_MODE_FORKED || m == SL_MODE_ADOPTING ? sl_fork_adopt() : m;
}

static int64_t ts_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static char *absolute(const char *path, const char *cwd)
{
    if (path[0] == '/' || !cwd)
        return strdup(path);
    size_t a = strlen(cwd), b = strlen(path);
    char *s = malloc(a + b + 2);
    if (s) {
        memcpy(s, cwd, a);
        s[a] = '/';
        memcpy(s + a + 1, path, b + 1);
    }
    return s;
}

static void check_counting(void)
{
    static const char *const need[] = {"LIKWID_FILEPATH", "LIKWID_MODE", "LIKWID_EVENTS",
                                       "LIKWID_THREADS"};
    const char *missing = NULL;
    for (size_t i = 0; i < sizeof need / sizeof need[0] && !missing; i++)
        if (!getenv(need[i]))
            missing = need[i];
    sl_g.counting = !missing;
    if (missing && strcmp(missing, "LIKWID_FILEPATH") == 0)
        sl_g.not_counting = strdup("LIKWID_FILEPATH not set: not run under likwid-perfctr -m");
    else if (missing) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s not set", missing);
        sl_g.not_counting = strdup(buf);
    }
    const char *ev = getenv("LIKWID_EVENTS");
    sl_g.ngroups = 1;
    for (const char *p = ev ? ev : ""; *p; p++)
        sl_g.ngroups += *p == '|';
}

static void do_init(void)
{
    sl_config_load(&sl_g.cfg);
    if (sl_g.cfg.disabled) {
        atomic_store(&sl_mode, SL_MODE_PASS);
        return;
    }
    const char *other = sl_real_other_copy();
    if (other) {
        char *self = sl_self_path();
        sl_log_warn("two copies of the shim are loaded: %s times the regions, %s stays out",
                    self ? self : "the first", other);
        free(self);
    }
    sl_g.pid = getpid();
    sl_run_meta_start();
    int64_t mono = ts_ns(CLOCK_MONOTONIC), real = ts_ns(CLOCK_REALTIME);
    sl_g.origin_unix_ns = real - mono;
    sl_markerfile_note_init();
    sl_g.mpi = sl_rank_from_env(&sl_g.rank);
    if (!sl_g.mpi)
        sl_g.rank = 0;
    check_counting();

    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    char *cwd = getcwd(NULL, 0);
    sl_output_vars v = {.rank = sl_g.rank, .pid = sl_g.pid, .host = host,
                        .job = sl_job_from_env(), .cwd = cwd};
    const char *tmpl = sl_g.cfg.output ? sl_g.cfg.output : sl_output_default(sl_g.mpi);
    char *expanded = sl_output_expand(tmpl, &v);
    int no_result = 0;      /* SCOPE_LIKWID_OUTPUT=/dev/null */
    sl_g.output = expanded ? sl_output_place(expanded, sl_g.mpi, &v, &no_result) : NULL;
    /* Helpers are started later, maybe after a chdir: fix their paths now. */
    char *c;
    if (sl_g.cfg.collector && (c = absolute(sl_g.cfg.collector, cwd))) {
        free(sl_g.cfg.collector);
        sl_g.cfg.collector = c;
    }
    if (sl_g.cfg.writer && (c = absolute(sl_g.cfg.writer, cwd))) {
        free(sl_g.cfg.writer);
        sl_g.cfg.writer = c;
    }
    free(cwd);
    if (no_result) {
        atomic_store(&sl_mode, SL_MODE_PASS);
        return;
    }
    if (!sl_g.output) {
        sl_log_warn("out of memory at likwid_markerInit; passing calls through untouched");
        atomic_store(&sl_mode, SL_MODE_PASS);
        return;
    }
    sl_rt_configure(sl_g.cfg.max_calls, 0);
    /* SCOPE_LIKWID_TSC=0 forces clock_gettime (for comparisons; undocumented
     * outside bench/README.md). */
    const char *tsc = getenv("SCOPE_LIKWID_TSC");
    int on_tsc = sl_rt_clock_init(!(tsc && strcmp(tsc, "0") == 0));
    sl_g.tsc = on_tsc;
    sl_fork_arm();
    /* The exit path (LIKWID's Init may exit() the process, the application
     * may never Close): exit_hook.c. */
    sl_exit_hook_arm();
    sl_g.cycle = 1;
    sl_g.first_output = sl_g.output;
    sl_survive_begin(sl_g.output, sl_g.pid, 0, sl_g.mpi, sl_g.rank, sl_g.origin_unix_ns, on_tsc,
                     sl_g.cfg.writer, sl_g.cfg.timeout_s);
    atomic_store_explicit(&real_start, no_likwid_start, RELAXED);
    atomic_store_explicit(&real_stop, no_likwid_stop, RELAXED);
    sl_log_debug("active: output %s; clock %s; LIKWID %s%s", sl_g.output,
                 on_tsc ? "TSC, converted to CLOCK_MONOTONIC" : "CLOCK_MONOTONIC",
                 sl_g.counting ? "counting" : "not counting: ",
                 sl_g.counting ? "" : sl_g.not_counting ? sl_g.not_counting : "?");
    atomic_store(&sl_mode, SL_MODE_ACTIVE);
}

void sl_shim_init(void)
{
    const sl_real_api *r = sl_real();
    if (mode() == SL_MODE_IDLE)
        pthread_once(&init_once, do_init);
    int m = mode_timing();
    if (m == SL_MODE_ACTIVE && getpid() != sl_g.pid) {
        atomic_store(&sl_mode, SL_MODE_PASS);
        m = SL_MODE_PASS;
    }
    if (m == SL_MODE_CLOSED) {
        /* Init after Close: the next cycle (cycle.c). */
        if (getpid() != sl_g.pid || !sl_cycle_begin())
            return;
        r = sl_cycle_api();     /* Start/Stop reach LIKWID after its Init, below */
        atomic_store_explicit(&real_start, no_likwid_start, RELAXED);
        atomic_store_explicit(&real_stop, no_likwid_stop, RELAXED);
        atomic_store(&sl_mode, SL_MODE_ACTIVE);
        m = SL_MODE_ACTIVE;
    }
    if (m == SL_MODE_ACTIVE)
        sl_rt_self();
    if (r->init) {
        atomic_store(&sl_in_real_init, 1);
        r->init();
        atomic_store(&sl_in_real_init, 0);
        /* From now on Start and Stop go to LIKWID too (also when LIKWID was
         * found only after an earlier Init: loaded late by the caller). */
        if (m == SL_MODE_ACTIVE) {
            atomic_store_explicit(&real_start, r->start ? r->start : no_likwid_start, RELAXED);
            atomic_store_explicit(&real_stop, r->stop ? r->stop : no_likwid_stop, RELAXED);
            atomic_store(&likwid_live, 1);
        }
    }
}

void sl_shim_thread_init(void)
{
    const sl_real_api *r = sl_cycle_api();
    int m = mode_timing();
    if (m == SL_MODE_CLOSED)
        return;
    if (m == SL_MODE_ACTIVE)
        sl_rt_self();
    if (r->thread_init)
        r->thread_init();
}

int sl_shim_register_region(const char *tag)
{
    const sl_real_api *r = sl_cycle_api();
    int m = mode_timing();
    if (m == SL_MODE_CLOSED || !tag)
        return -EFAULT;
    if (m == SL_MODE_ACTIVE) {
        /* Creating the entry now keeps the first Start free of malloc. */
        sl_rt_thread *t = sl_rt_self();
        if (t)
            sl_rt_lookup(t, tag, 1);
    }
    return r->register_region ? r->register_region(tag) : 0;
}

/* Start and Stop are the hot path: one load and two tests here, then one
 * function in the region table (LIKWID's call included); the rare cases
 * (not active, NULL tag) are cold functions. */
static __attribute__((cold, noinline)) int start_rare(const char *tag)
{
    const sl_real_api *r = sl_cycle_api();
    int m = tag ? mode_timing() : mode();
    if (m == SL_MODE_ACTIVE && tag)     /* a forked child's first Start */
        return sl_rt_start_fwd(tag, atomic_load_explicit(&real_start, RELAXED));
    if (m == SL_MODE_CLOSED || !tag)
        return -EFAULT;
    return r->start ? r->start(tag) : -EFAULT;
}

static __attribute__((cold, noinline)) int stop_rare(const char *tag)
{
    const sl_real_api *r = sl_cycle_api();
    if (mode() == SL_MODE_CLOSED || !tag)
        return -EFAULT;
    return r->stop ? r->stop(tag) : -EFAULT;
}

int sl_shim_start(const char *tag)
{
    if (__builtin_expect(atomic_load_explicit(&sl_mode, memory_order_acquire) == SL_MODE_ACTIVE &&
                             tag != NULL, 1))
        /* LIKWID first, our clock last: the timing leaves LIKWID's reads out. */
        return sl_rt_start_fwd(tag, atomic_load_explicit(&real_start, RELAXED));
    return start_rare(tag);
}

int sl_shim_stop(const char *tag)
{
    if (__builtin_expect(atomic_load_explicit(&sl_mode, memory_order_acquire) == SL_MODE_ACTIVE &&
                             tag != NULL, 1))
        /* Our clock first, then LIKWID, unless the region is not open or
         * was never started here: LIKWID would deadlock (5.2) or crash
         * (5.5+) on the latter, and -EFAULT is what it returns for a region
         * that is not running. */
        return sl_rt_stop_fwd(tag, atomic_load_explicit(&real_stop, RELAXED));
    return stop_rare(tag);
}

int sl_shim_reset(const char *tag)
{
    const sl_real_api *r = sl_cycle_api();
    int m = mode();
    if (m != SL_MODE_ACTIVE) {
        if (m == SL_MODE_CLOSED || !tag)
            return -EFAULT;
        return r->reset ? r->reset(tag) : -EFAULT;
    }
    if (!tag)
        return -EFAULT;
    sl_rt_thread *t = sl_rt_self();
    sl_rt_entry *e = t ? sl_rt_lookup(t, tag, 0) : NULL;
    if (t && (!e || !sl_rt_started(e)))
        return -EFAULT;     /* LIKWID: "Can only reset stopped regions" */
    /* The shim's own timing is not reset: it records every call. */
    if (r->reset)
        return r->reset(tag);
    return e && !sl_rt_is_open(e) ? 0 : -EFAULT;
}

/* GetRegion answered by the shim: every output defined. While LIKWID counts,
 * the events the caller has room for are zeros (what LIKWID 5.2 answers for
 * a region it has no counts of), so a caller that sized its buffer from
 * perfmon_getNumberOfEvents() finds every entry it reads filled. Otherwise
 * no events (the buffer is not touched), as LIKWID answers when it does not
 * count. */
static void answer_region(int *nr_events, double *events, double *time, int *count)
{
    if (nr_events) {
        int n = *nr_events;
        if (n > 0 && events && atomic_load(&likwid_live) && sl_g.counting)
            memset(events, 0, (size_t)n * sizeof *events);
        else
            *nr_events = 0;
    }
    if (time)
        *time = 0;
    if (count)
        *count = 0;
}

/* The same, with the shim's own time and count of the calling thread's
 * region, which the shim always has. */
static void answer_own(sl_rt_thread *t, const sl_rt_entry *e, int *nr_events, double *events,
                       double *time, int *count)
{
    answer_region(nr_events, events, time, count);
    int64_t calls;
    double seconds;
    sl_rt_own(t, e, &calls, &seconds);
    if (time)
        *time = seconds;
    if (count)
        *count = calls > INT_MAX ? INT_MAX : (int)calls;
}

void sl_shim_get(const char *tag, int *nr_events, double *events, double *time, int *count)
{
    const sl_real_api *r = sl_cycle_api();
    int m = mode();
    if (m != SL_MODE_ACTIVE) {
        if (m == SL_MODE_CLOSED || !tag || !r->get)
            answer_region(nr_events, events, time, count);
        else
            r->get(tag, nr_events, events, time, count);
        return;
    }
    sl_rt_thread *t = tag ? sl_rt_self() : NULL;
    sl_rt_entry *e = t ? sl_rt_lookup(t, tag, 0) : NULL;
    /* Unknown here: LIKWID would create an empty region (5.2) or crash
     * (5.5+); and a LIKWID never initialised has nothing to say. */
    if (!e || !sl_rt_started(e)) {
        answer_region(nr_events, events, time, count);
        return;
    }
    if (!r->get || !atomic_load(&likwid_live)) {
        answer_own(t, e, nr_events, events, time, count);
        return;
    }
    r->get(tag, nr_events, events, time, count);
}

void sl_shim_next_group(void)
{
    const sl_real_api *r = sl_cycle_api();
    int m = mode();
    if (m == SL_MODE_CLOSED)
        return;
    if (m == SL_MODE_ACTIVE)
        atomic_fetch_add(&sl_next_group_calls, 1);
    if (r->next_group)
        r->next_group();
}

void sl_shim_close(void)
{
    const sl_real_api *r = sl_cycle_api();
    int m = mode();
    if (m == SL_MODE_ACTIVE && getpid() != sl_g.pid) {
        /* A child made without fork() (no atfork handler ran). */
        atomic_store(&sl_mode, SL_MODE_PASS);
        m = SL_MODE_PASS;
    }
    if (m == SL_MODE_ACTIVE) {
        sl_close_run();
        return;
    }
    if (m != SL_MODE_CLOSED && r->close)
        r->close();
}
