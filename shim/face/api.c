/* The marker API as the shim answers it: one path for the C and Fortran
 * entry points; the hot path's first test (the mode, one load); Init (its
 * first part once per process: configuration, the result's name, the
 * tables, the clock, the hooks, the journal). */
#include "face.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* LIKWID's Start and Stop for the hot path (stand-ins until LIKWID's Init
 * has been forwarded), set before the mode becomes ACTIVE and again when a
 * LIKWID found later is initialised; relaxed loads (a plain move). */
#define RELAXED memory_order_relaxed

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
 * process of its own here (end/forked.c). The others pass a FORKED child's calls
 * through, as for one that never called Init. */
static int mode_timing(void)
{
    int m = mode();
    return m == SL_MODE_FORKED || m == SL_MODE_ADOPTING ? sl_fork_adopt() : m;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

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

/* The process's identity and what Init knows of LIKWID; returns Init's
 * CLOCK_REALTIME in ns. */
static int64_t init_process(void)
{
    sl_g.pid = getpid();
    sl_sandbox_note();
    sl_root_note();
    sl_run_meta_start();
    int64_t mono = sl_clock_ns(CLOCK_MONOTONIC), real = sl_clock_ns(CLOCK_REALTIME);
    sl_g.origin_unix_ns = real - mono;
    sl_markerfile_note_init();
    sl_g.mpi = sl_rank_from_env(&sl_g.rank);
    if (!sl_g.mpi)
        sl_g.rank = 0;
    sl_env_counting();
    return real;
}

/* The result's name (sl_g.output; NULL with *no_result for /dev/null, else
 * on ENOMEM), and the helpers' paths made absolute. */
static void init_result_name(int64_t real, int *no_result)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    char *cwd = getcwd(NULL, 0);
    free(sl_g.user);
    sl_g.uid = getuid();
    /* The passwd lookup may load the site's NSS modules into the
     * application: done here only for a %u (the defaults have none). */
    sl_g.user = sl_output_needs_user(sl_g.cfg.output) ? sl_user_name(sl_g.uid) : NULL;
    sl_env_spare_dirs_note();
    sl_proof_key_make();
    sl_output_vars v = {.rank = sl_g.rank, .pid = sl_g.pid, .host = host,
                        .job = sl_env_job(), .user = sl_g.user,
                        .unix_s = real / 1000000000, .cwd = cwd};
    /* where it runs, once: Close may run at exit or in a signal's wake */
    sl_provenance_read(&sl_g.prov);
    free(sl_g.run_id);
    sl_g.run_id = sl_env_run_id(host, sl_g.pid, real, sl_g.mpi);
    const char *tmpl = sl_g.cfg.output ? sl_g.cfg.output : sl_output_default(sl_g.mpi, v.job != NULL);
    char *expanded = sl_output_expand(tmpl, &v);
    sl_name_result_init(expanded, &v, no_result);
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
}

/* The tables, the clock, the hooks, the journal and the reports; then
 * ACTIVE. */
static void init_timing(void)
{
    sl_rt_configure(sl_g.cfg.max_calls, 0);
    /* SCOPE_LIKWID_TSC off forces clock_gettime. */
    int on_tsc = sl_rt_clock_init(sl_env_bool("SCOPE_LIKWID_TSC", 1));
    sl_g.tsc = on_tsc;
    sl_fork_arm();
    /* The exit path (LIKWID's Init may end the process, the application
     * may never Close): end/ending.c. */
    sl_exit_hook_arm();
    sl_g.cycle = 1;
    sl_name_result_first();
    /* What Close needs, held while the process has the root it started with */
    sl_anchor_take(sl_g.output);
    sl_user_change_arm();
    sl_survive_begin(sl_g.output, sl_g.pid, 0, sl_g.mpi, sl_g.rank, sl_g.origin_unix_ns, on_tsc,
                     sl_g.cfg.writer, sl_g.cfg.timeout_s);
    sl_run_report_take(sl_env(SL_ENV_RUN_REPORT));
    sl_host_take();
    sl_run_report("init", sl_g.output);
    sl_run_report("journal", sl_journal_path());
    atomic_store_explicit(&real_start, no_likwid_start, RELAXED);
    atomic_store_explicit(&real_stop, no_likwid_stop, RELAXED);
    sl_log_debug("active: output %s; clock %s; LIKWID %s%s", sl_g.output,
                 on_tsc ? "TSC, converted to CLOCK_MONOTONIC" : "CLOCK_MONOTONIC",
                 sl_g.counting ? "counting" : "not counting: ",
                 sl_g.counting ? "" : sl_g.not_counting ? sl_g.not_counting : "?");
    atomic_store(&sl_mode, SL_MODE_ACTIVE);
}

static void do_init(void)
{
    /* A setuid or setgid program (AT_SECURE) runs with rights its user does
     * not have: nothing of the shim's runs in it, no file, no process, no
     * line (docs/SECURITY.md). */
    if (getauxval(AT_SECURE)) {
        atomic_store(&sl_mode, SL_MODE_PASS);
        return;
    }
    sl_spawn_at_load();
    sl_real_libc_find();
    sl_config_load(&sl_g.cfg);
    char *exe = realpath("/proc/self/exe", NULL);
    int excluded = sl_excluded(sl_env(SL_ENV_EXCLUDE), exe);
    free(exe);
    if (sl_g.cfg.disabled || excluded) {
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
    int64_t real = init_process();
    int no_result = 0;      /* SCOPE_LIKWID_OUTPUT=/dev/null */
    init_result_name(real, &no_result);
    if (no_result) {
        atomic_store(&sl_mode, SL_MODE_PASS);
        return;
    }
    if (!sl_g.output) {
        sl_log_warn("out of memory at likwid_markerInit; passing calls through untouched");
        atomic_store(&sl_mode, SL_MODE_PASS);
        return;
    }
    init_timing();
}

void sl_shim_init(void)
{
    const sl_real_api *r = sl_real();
    if (mode() == SL_MODE_IDLE)
        pthread_once(&init_once, do_init);
    /* A child forked during or after Close times from its own Init on. */
    int closed_fork = SL_MODE_FORKED_CLOSED;
    atomic_compare_exchange_strong(&sl_mode, &closed_fork, SL_MODE_FORKED);
    int m = mode_timing();
    if (m == SL_MODE_ACTIVE && getpid() != sl_g.pid) {
        atomic_store(&sl_mode, SL_MODE_PASS);
        m = SL_MODE_PASS;
    }
    if (m == SL_MODE_CLOSED) {
        /* Init after Close: the next cycle (end/cycle.c). */
        if (getpid() != sl_g.pid || !sl_cycle_begin())
            return;
        r = sl_cycle_api();     /* Start/Stop reach LIKWID after its Init, below */
        atomic_store_explicit(&real_start, no_likwid_start, RELAXED);
        atomic_store_explicit(&real_stop, no_likwid_stop, RELAXED);
        atomic_store(&sl_mode, SL_MODE_ACTIVE);
        m = SL_MODE_ACTIVE;
    }
    if (m == SL_MODE_ACTIVE) {
        sl_rebind_loaded();     /* objects bound past the global scope reach the shim */
        sl_rt_self();
    }
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
    if (m == SL_MODE_ACTIVE) {
        int ng = sl_g.ngroups > 0 ? sl_g.ngroups : 1;
        sl_rt_mark_group(atomic_fetch_add(&sl_next_group_calls, 1) % ng);
    }
    if (r->next_group)
        r->next_group();
}

/* LIKWID 5.5's WriteFile writes the results of its last Close to another
 * file (before a Close it has none and says so): it reads nothing the
 * shim's Close destroys, so it is forwarded in every mode. Without it (5.2,
 * no LIKWID) the answer is LIKWID's "not initialised". */
int sl_shim_write_file(const char *markerfile)
{
    const sl_real_api *r = sl_cycle_api();
    if (!markerfile || !r->write_file)
        return -EFAULT;
    return r->write_file(markerfile);
}

void sl_shim_close(void)
{
    const sl_real_api *r = sl_cycle_api();
    int m = mode();
    if (m == SL_MODE_ACTIVE && getpid() != sl_g.pid) {
        /* A child made without the fork function (no atfork handler ran). */
        atomic_store(&sl_mode, SL_MODE_PASS);
        m = SL_MODE_PASS;
    }
    if (m == SL_MODE_ACTIVE) {
        sl_close_run();
        return;
    }
    if (m == SL_MODE_CLOSED)
        sl_close_await();   /* another thread's Close: returns once it delivered */
    else if (r->close)
        r->close();
}
