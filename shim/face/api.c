/* The marker API as the shim answers it: one path for the C and Fortran
 * entry points; the hot path's first test (the mode, one load). */
#include "face.h"

#include <errno.h>
#include <string.h>
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

static int mode(void);
static int mode_timing(void);

/* LIKWID's stand-ins for Start and Stop, before the mode becomes ACTIVE. */
void sl_api_standins(void)
{
    atomic_store_explicit(&real_start, no_likwid_start, RELAXED);
    atomic_store_explicit(&real_stop, no_likwid_stop, RELAXED);
}

void sl_shim_init(void)
{
    const sl_real_api *r = sl_real();
    if (mode() == SL_MODE_IDLE)
        sl_init_once();
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

/* The mode for an entry point that times: a forked child becomes a
 * process of its own here (end/forked.c). The others pass a FORKED child's calls
 * through, as for one that never called Init. */
static int mode_timing(void)
{
    int m = mode();
    return m == SL_MODE_FORKED || m == SL_MODE_ADOPTING ? sl_fork_adopt() : m;
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
