/* The marker API as the shim answers it, Init and the mode; the
 * environment read at Init, the result file's name, the one copy of the
 * shim in a process, and its messages. */
#include "shim.h"
#include "anchor.h"
#include "bool_word.h"
#include "fileio.h"
#include "rebind.h"
#include "name_fit.h"
#include "trusted_dir.h"
#include "vec.h"

#include <elf.h>
#include <fnmatch.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* ==== marker ==== */

/* The marker API as the shim answers it: timing of every region, the
 * hazards of likwid-api.md kept away from LIKWID, everything else forwarded
 * to LIKWID's real C functions. One path for C and Fortran callers. */
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
 * process of its own here (entry.c). The others pass a FORKED child's calls
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
    /* A setuid or setgid program (AT_SECURE) runs with rights its user does
     * not have: nothing of the shim's runs in it, no file, no process, no
     * line (docs/SECURITY.md). */
    if (getauxval(AT_SECURE)) {
        atomic_store(&sl_mode, SL_MODE_PASS);
        return;
    }
    sl_spawn_at_load();
    sl_entry_at_load();
    sl_config_load(&sl_g.cfg);
    char *exe = realpath("/proc/self/exe", NULL);
    int excluded = sl_excluded(getenv("SCOPE_LIKWID_EXCLUDE"), exe);
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
    sl_g.pid = getpid();
    sl_sandbox_note();
    sl_root_note();
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
    free(sl_g.user);
    sl_g.uid = getuid();
    /* The passwd lookup may load the site's NSS modules into the
     * application: done here only for a %u (the defaults have none). */
    sl_g.user = sl_output_needs_user(sl_g.cfg.output) ? sl_user_name(sl_g.uid) : NULL;
    sl_spare_dirs_note();
    sl_proof_key_make();
    sl_output_vars v = {.rank = sl_g.rank, .pid = sl_g.pid, .host = host,
                        .job = sl_job_from_env(), .user = sl_g.user,
                        .unix_s = real / 1000000000, .cwd = cwd};
    /* where it runs, once: Close may run at exit or in a signal's wake */
    sl_provenance_read(&sl_g.prov);
    free(sl_g.run_id);
    sl_g.run_id = sl_run_id_from_env(host, sl_g.pid, real, sl_g.mpi);
    const char *tmpl = sl_g.cfg.output ? sl_g.cfg.output : sl_output_default(sl_g.mpi, v.job != NULL);
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
    /* SCOPE_LIKWID_TSC off forces clock_gettime. */
    int on_tsc = sl_rt_clock_init(sl_env_bool("SCOPE_LIKWID_TSC", 1));
    sl_g.tsc = on_tsc;
    sl_fork_arm();
    /* The exit path (LIKWID's Init may end the process, the application
     * may never Close): close.c. */
    sl_exit_hook_arm();
    sl_g.cycle = 1;
    sl_g.first_output = sl_g.output;
    /* What Close needs, held while the process has the root it started with */
    sl_anchor_take(sl_g.output);
    sl_user_change_arm();
    sl_survive_begin(sl_g.output, sl_g.pid, 0, sl_g.mpi, sl_g.rank, sl_g.origin_unix_ns, on_tsc,
                     sl_g.cfg.writer, sl_g.cfg.timeout_s);
    sl_run_report_take();
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
        /* Init after Close: the next cycle (close.c). */
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

/* ==== config ==== */

/* SCOPE_LIKWID_* variables: parsed once, bad values warned about once and
 * replaced by their defaults. */
static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Decimal seconds, fractional allowed, "C" syntax regardless of locale
 * (strtod would honour the application's LC_NUMERIC). */
int sl_parse_timeout(const char *s, double *out)
{
    double v = 0, scale = 1;
    int digits = 0, dot = 0;
    const char *p = s;
    while (is_blank(*p))
        p++;
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            if (dot) {
                scale /= 10;
                v += (*p - '0') * scale;
            } else {
                v = v * 10 + (*p - '0');
            }
            digits++;
        } else if (*p == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
    }
    while (is_blank(*p))
        p++;
    if (*p || !digits || !(v > 0) || !isfinite(v) || v > 86400.0 * 365)
        return -EINVAL;
    *out = v;
    return 0;
}

int sl_parse_max_calls(const char *s, int64_t *out)
{
    const char *p = s;
    int64_t v = 0;
    int digits = 0;
    while (is_blank(*p))
        p++;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (v > (INT64_MAX - 9) / 10)
            return -EINVAL;
        v = v * 10 + (*p - '0');
    }
    while (is_blank(*p))
        p++;
    if (*p || !digits)
        return -EINVAL;
    *out = v;
    return 0;
}

int sl_parse_sources(const char *s, unsigned *out)
{
    static const struct { const char *name; unsigned bit; } names[] = {
        {"full_api", SL_SRC_FULL_API},
        {"marker_file", SL_SRC_MARKER_FILE},
        {"marker_api", SL_SRC_MARKER_API},
    };
    unsigned bits = 0;
    const char *p = s;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *a = p, *b = p + len;
        while (a < b && is_blank(*a))
            a++;
        while (b > a && is_blank(b[-1]))
            b--;
        if (b > a) {
            int known = 0;
            for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
                if ((size_t)(b - a) == strlen(names[i].name) &&
                    memcmp(a, names[i].name, (size_t)(b - a)) == 0) {
                    bits |= names[i].bit;
                    known = 1;
                }
            if (!known)
                sl_log_warn("SCOPE_LIKWID_SOURCES: unknown source '%.*s' ignored: expected "
                            "full_api, marker_file or marker_api", (int)(b - a), a);
        }
        p += len;
        if (*p == ',')
            p++;
    }
    if (!bits)
        return -EINVAL;
    *out = bits;
    return 0;
}

/* Each variable warned about once in the process, however often it is
 * read (rebind asks at every dlopen): the names (string literals) warned
 * about so far, claimed slot by slot. */
static const char *_Atomic warned[16];

static int first_warning(const char *name)
{
    for (size_t i = 0; i < sizeof warned / sizeof warned[0]; i++) {
        const char *w = NULL;
        if (atomic_compare_exchange_strong(&warned[i], &w, name))
            return 1;
        if (strcmp(w, name) == 0)
            return 0;
    }
    return 1;
}

int sl_env_bool(const char *name, int def)
{
    char warn[SL_BOOL_WARN_BUF];
    int b = sl_bool_value(name, getenv(name), def, warn);
    if (warn[0] && first_warning(name))
        sl_log_warn("%s", warn);
    return b;
}

int sl_config_disabled(void)
{
    return sl_env_bool("SCOPE_LIKWID_DISABLE", 0);
}

/* A variable that names a program or a path (secure_getenv: a setuid or
 * setgid program never gets this far, do_init leaves it alone). */
static char *env_path(const char *name)
{
    const char *v = secure_getenv(name);
    if (v && !*v) {
        sl_log_warn("%s is empty: expected a path; using the default", name);
        return NULL;
    }
    return v ? strdup(v) : NULL;
}

void sl_config_free(sl_config *c)
{
    free(c->output);
    free(c->collector);
    free(c->writer);
    memset(c, 0, sizeof *c);
}

void sl_config_load(sl_config *c)
{
    memset(c, 0, sizeof *c);
    /* Quiet and verbose first, so that they govern the warnings below. */
    c->quiet = sl_env_bool("SCOPE_LIKWID_QUIET", 0);
    c->verbose = sl_env_bool("SCOPE_LIKWID_VERBOSE", 0);
    sl_log_configure(c->verbose, c->quiet);
    c->disabled = sl_config_disabled();

    c->timeout_s = SL_DEFAULT_TIMEOUT_S;
    const char *v = getenv("SCOPE_LIKWID_TIMEOUT");
    if (v && sl_parse_timeout(v, &c->timeout_s) != 0)
        sl_log_warn("SCOPE_LIKWID_TIMEOUT='%s' not understood: expected seconds > 0 "
                    "(e.g. 10 or 2.5); using %g", v, SL_DEFAULT_TIMEOUT_S);

    c->sources = SL_SRC_ALL;
    v = getenv("SCOPE_LIKWID_SOURCES");
    if (v && sl_parse_sources(v, &c->sources) != 0)
        sl_log_warn("SCOPE_LIKWID_SOURCES='%s' names no known source: expected a comma list of "
                    "full_api, marker_file, marker_api; using all three", v);

    c->max_calls = SL_DEFAULT_MAX_CALLS;
    v = getenv("SCOPE_LIKWID_MAX_CALLS");
    if (v && sl_parse_max_calls(v, &c->max_calls) != 0)
        sl_log_warn("SCOPE_LIKWID_MAX_CALLS='%s' not understood: expected an integer >= 0; "
                    "using %d", v, SL_DEFAULT_MAX_CALLS);

    /* A site may keep the arguments out of every result (they may hold
     * secrets); the program's name stays. */
    c->keep_args = sl_env_bool("SCOPE_LIKWID_ARGS", 1);
    if (sl_share_setting() < 0)
        sl_log_warn("%s='%s' not understood: expected group or none; sharing nothing",
                    SL_SHARE_ENV, getenv(SL_SHARE_ENV));

    c->output = env_path("SCOPE_LIKWID_OUTPUT");
    c->collector = env_path("SCOPE_LIKWID_COLLECTOR");
    c->writer = env_path("SCOPE_LIKWID_WRITER");
}

/* ==== output path ==== */

/* Rank detection and expansion of the SCOPE_LIKWID_OUTPUT template. */
static int parse_rank(const char *s, int64_t *out)
{
    int64_t v = 0;
    const char *p = s;
    if (!*p)
        return -EINVAL;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (INT64_MAX - 9) / 10)
            return -EINVAL;
        v = v * 10 + (*p - '0');
    }
    if (*p)
        return -EINVAL;
    *out = v;
    return 0;
}

/* A positive count at the start of s (SLURM_NTASKS and the like), else -1. */
static int64_t leading_count(const char *s)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    int64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v > 0 && (*s == '\0' || *s == ',') ? v : -1;
}

/* Slurm's task variables (SLURM_PROCID, SLURM_NTASKS) name a task only
 * inside a step (srun): a batch script has SLURM_PROCID=0 and the job's
 * SLURM_NTASKS, but runs one process of its own, not a task of N. */
static const char *slurm_task_var(const char *name)
{
    const char *step = getenv("SLURM_STEP_ID");
    return step && *step ? getenv(name) : NULL;
}

int64_t sl_world_size_from_env(void)
{
    /* OMPI_MCA_orte_ess_num_procs: what Open MPI 4's own singleton sets
     * (with PMIX_RANK=0 and no other size); mpirun sets it to the job's
     * size too. */
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                       "SLURM_NTASKS", "MV2_COMM_WORLD_SIZE", "PALS_SIZE",
                                       "OMPI_MCA_orte_ess_num_procs"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        int64_t v = leading_count(strncmp(vars[i], "SLURM_", 6) ? getenv(vars[i])
                                                                : slurm_task_var(vars[i]));
        if (v > 0)
            return v;
    }
    const char *ess = getenv("OMPI_MCA_ess");
    if (ess && strcmp(ess, "singleton") == 0)
        return 1;
    return -1;
}

int sl_rank_from_env(int64_t *rank)
{
    static const char *const vars[] = {
        "PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID",
        "MV2_COMM_WORLD_RANK", "MPI_LOCALRANKID", "ALPS_APP_PE", "PALS_RANKID",
    };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = strncmp(vars[i], "SLURM_", 6) ? getenv(vars[i]) : slurm_task_var(vars[i]);
        if (!v)
            continue;
        if (parse_rank(v, rank) == 0)
            /* A world of one (an MPI singleton: a serial run whose MPI
             * library set PMIX_RANK=0; srun -n 1) is a serial run. */
            return sl_world_size_from_env() != 1;
        sl_log_warn("%s='%s' is not a rank: expected an integer >= 0; ignored", vars[i], v);
    }
    return 0;
}

int sl_excluded(const char *patterns, const char *exe)
{
    if (!patterns || !*patterns || !exe)
        return 0;
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    for (const char *p = patterns; *p;) {
        size_t n = strcspn(p, ":");
        char pat[256];
        if (n && n < sizeof pat) {
            memcpy(pat, p, n);
            pat[n] = '\0';
            if (fnmatch(pat, exe, 0) == 0 || fnmatch(pat, base, 0) == 0)
                return 1;
        }
        p += n + (p[n] == ':');
    }
    return 0;
}

const char *sl_output_default(int mpi, int job)
{
    if (job)
        return mpi ? "scope-likwid-%j-rank%r.h5" : "scope-likwid-%j-%p.h5";
    return mpi ? "scope-likwid-rank%r.h5" : "scope-likwid-%p.h5";
}

typedef struct buf {
    char *s;
    size_t len, cap;
    int oom;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (SL_VEC_RESERVE(b->s, b->cap, b->len, n + 1) < 0) {
        b->oom = 1;
        return;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void puts_(buf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* A host or job name must not add directories to the path. */
static void put_component(buf *b, const char *s)
{
    for (; *s; s++)
        put(b, *s == '/' ? "_" : s, 1);
}

int sl_output_needs_user(const char *tmpl)
{
    for (const char *p = tmpl; p && *p; p++)
        if (*p == '%' && p[1]) {
            if (p[1] == 'u')
                return 1;
            p++;    /* the code ("%%" included) */
        }
    return 0;
}

char *sl_output_expand(const char *tmpl, const sl_output_vars *v)
{
    buf b = {0};
    char num[32];
    if (tmpl[0] != '/' && v->cwd && v->cwd[0]) {
        puts_(&b, v->cwd);
        if (v->cwd[strlen(v->cwd) - 1] != '/')
            puts_(&b, "/");
    }
    for (const char *p = tmpl; *p; p++) {
        if (*p != '%') {
            put(&b, p, 1);
            continue;
        }
        switch (p[1]) {
        case 'r':
            snprintf(num, sizeof num, "%" PRId64, v->rank);
            puts_(&b, num);
            break;
        case 'p':
            snprintf(num, sizeof num, "%" PRId64, v->pid);
            puts_(&b, num);
            break;
        case 'h':
            put_component(&b, v->host && *v->host ? v->host : "unknownhost");
            break;
        case 'j':
            put_component(&b, v->job && *v->job ? v->job : "nojob");
            break;
        case 'u':
            put_component(&b, v->user && *v->user ? v->user : "nouser");
            break;
        case 'd':
        case 't': {
            time_t t = (time_t)v->unix_s;
            struct tm tm;
            if (gmtime_r(&t, &tm) &&
                strftime(num, sizeof num, p[1] == 'd' ? "%Y-%m-%d" : "%H%M%S", &tm) > 0)
                puts_(&b, num);
            break;
        }
        case '%':
            puts_(&b, "%");
            break;
        case '\0':
            sl_log_warn("SCOPE_LIKWID_OUTPUT='%s': '%%' at the end: expected one of "
                        "%%r %%p %%h %%j %%u %%d %%t %%%%; kept literally", tmpl);
            puts_(&b, "%");
            continue;   /* p[1] is the terminator: the loop ends */
        default:
            sl_log_warn("SCOPE_LIKWID_OUTPUT='%s': unknown code '%%%c': expected one of "
                        "%%r %%p %%h %%j %%u %%d %%t %%%%; kept literally", tmpl, p[1]);
            put(&b, p, 2);
            break;
        }
        p++;
    }
    if (!b.s && !b.oom)
        puts_(&b, "");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* The default name in dir (NULL: relative, as the caller's cwd resolves it). */
static char *default_in(const char *dir, int mpi, const sl_output_vars *v)
{
    sl_output_vars in = *v;
    in.cwd = dir;
    return sl_output_expand(sl_output_default(mpi, v->job != NULL), &in);
}

/* The directories a file of the process goes to when the result's own
 * directory will not take it: TMPDIR (absolute), then /tmp, each only when
 * another user cannot change what is in it (trusted_dir.h). Looked at
 * once, at the first Init. */
static char *spare[3];
static int spare_noted;

void sl_spare_dirs_note(void)
{
    if (spare_noted)
        return;
    const char *tmpdir = secure_getenv("TMPDIR");
    const char *cand[3] = {tmpdir && tmpdir[0] == '/' ? tmpdir : NULL, "/tmp", "/var/tmp"};
    char *why = malloc(PATH_MAX + 128);
    for (int i = 0; i < 3; i++)
        if (cand[i] && why && sl_dir_trusted(cand[i], geteuid(), why, PATH_MAX + 128) == 0)
            spare[i] = strdup(cand[i]);
    free(why);
    spare_noted = 1;
}

const char *sl_spare_dir(int i)
{
    sl_spare_dirs_note();
    return i >= 0 && i < 3 ? spare[i] : NULL;
}

#define WHY_BYTES (2 * PATH_MAX + 256)

/* The directory of path made (make) or found as it is, and trusted: path;
 * else, when another user could change what is in it, the same name in a
 * spare directory (one line says which); none there either: NULL with
 * *no_result set. A directory that cannot be made is said and path kept
 * (the rescue file then takes the timing to a spare directory). */
static char *settle(char *path, int make, int *no_result)
{
    char *dir = sl_dir_of(path), *why = malloc(WHY_BYTES);
    if (!dir || !why) {
        free(dir);
        free(why);
        return path;
    }
    int rc = make ? sl_dir_make(dir, sl_dir_mode(), geteuid(), why, WHY_BYTES)
                  : sl_dir_trusted(dir, geteuid(), why, WHY_BYTES);
    if (rc != 0 && rc != -EPERM && (make || rc != -ENOENT))
        sl_log_warn("cannot create the directory %s for the result %s (%s)", dir, path, why);
    if (rc == -EPERM) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        char *moved = NULL;
        for (int i = 0; i < 2 && !moved; i++)
            if (sl_spare_dir(i))
                moved = sl_name_fit_in(sl_spare_dir(i), "", base, "");
        if (moved)
            sl_log_warn("the directory %s is not safe for the result (%s: another user could "
                        "change what is in it); writing %s instead", dir, why, moved);
        else
            sl_log_warn("the directory %s is not safe for the result (%s: another user could "
                        "change what is in it), nor is TMPDIR or /tmp: no result file (the "
                        "calls pass through to LIKWID untimed)", dir, why);
        free(path);
        path = moved;
        *no_result = !moved;
    }
    free(dir);
    free(why);
    return path;
}

char *sl_output_place(char *path, int mpi, const sl_output_vars *v, int *no_result)
{
    *no_result = 0;
    size_t len = strlen(path);
    struct stat st, null_st;
    int exists = stat(path, &st) == 0;
    if ((len > 0 && path[len - 1] == '/') || (exists && S_ISDIR(st.st_mode))) {
        char *in = default_in(path, mpi, v);
        free(path);
        return in ? settle(in, 1, no_result) : NULL;
    }
    if (!exists || S_ISREG(st.st_mode))
        return settle(path, 1, no_result);
    if (stat("/dev/null", &null_st) == 0 && st.st_dev == null_st.st_dev &&
        st.st_ino == null_st.st_ino) {
        sl_log_warn("SCOPE_LIKWID_OUTPUT is %s: no result file (the calls pass through to "
                    "LIKWID untimed)", path);
        free(path);
        *no_result = 1;
        return NULL;
    }
    char *fallback = default_in(v->cwd, mpi, v);
    if (fallback)
        sl_log_warn("SCOPE_LIKWID_OUTPUT %s is %s: expected a regular file or a directory; "
                    "writing %s instead", path, sl_mode_kind(st.st_mode), fallback);
    free(path);
    return fallback ? settle(fallback, 0, no_result) : NULL;
}

/* "<dir>/<stem>.<what><N><.h5 or nothing>", kept within NAME_MAX. */
char *sl_output_derived(const char *output, const char *what, long long n)
{
    char suffix[48];
    size_t len = strlen(output);
    int h5 = len > 3 && strcmp(output + len - 3, ".h5") == 0;
    snprintf(suffix, sizeof suffix, ".%s%lld%s", what, n, h5 ? ".h5" : "");
    char *stem = strndup(output, h5 ? len - 3 : len);
    if (!stem)
        return NULL;
    char *out = sl_name_fit(stem, "", suffix);
    free(stem);
    return out;
}

/* ==== run's report ==== */

/* SCOPE_LIKWID_RUN_REPORT as it was at Init: the file `scope-likwid run`
 * created to learn what this process wrote (shim.h). */
static char *run_report;
/* Held from a change of user on (sl_run_report_hold): the file is run's
 * user's, whom the process may no longer be. */
static _Atomic int report_fd = -1;
static dev_t report_dev;
static ino_t report_ino;

void sl_run_report_take(void)
{
    const char *v = secure_getenv("SCOPE_LIKWID_RUN_REPORT");
    free(run_report);
    run_report = v && v[0] == '/' ? strdup(v) : NULL;
}

void sl_run_report_hold(void)
{
    struct stat st;
    int fd = run_report && atomic_load(&report_fd) < 0
                 ? sl_at_open(run_report, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0)
                 : -1;
    if (fd < 0)
        return;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 64);
    if (high >= 0) {
        close(fd);
        fd = high;
    }
    if (fstat(fd, &st) != 0) {
        close(fd);
        return;
    }
    report_dev = st.st_dev;
    report_ino = st.st_ino;
    atomic_store(&report_fd, fd);
}

void sl_run_report(const char *kind, const char *path)
{
    if (!run_report || !path || !path[0])
        return;
    int saved = errno;
    /* appended, never created: run made the file and reads it after the
     * application; one writev of a line is one append */
    int held = atomic_load(&report_fd);
    struct stat st;
    if (held >= 0 && (fstat(held, &st) != 0 || st.st_dev != report_dev || st.st_ino != report_ino))
        held = -1;      /* closed by the application: by name, as far as that goes */
    int fd = held >= 0 ? held
                       : sl_at_open(run_report, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0);
    if (fd >= 0) {
        /* "\tPID\t", without stdio: the signal handler reports too */
        char pid[24];
        size_t n = sizeof pid;
        pid[--n] = '\t';
        unsigned long long v = (unsigned long long)getpid();
        do
            pid[--n] = (char)('0' + v % 10);
        while ((v /= 10) && n > 1);
        pid[--n] = '\t';
        struct iovec iov[] = {{(void *)kind, strlen(kind)},
                              {pid + n, sizeof pid - n},
                              {(void *)path, strlen(path)},
                              {"\n", 1}};
        ssize_t w = writev(fd, iov, 4);
        (void)w;    /* nothing to do about it: run then says it has no answer */
        if (fd != held)
            close(fd);
    }
    errno = saved;
}

/* ==== one copy ==== */

/* One shim per process (see shim.h). Every copy carries the same ELF
 * note: a copy is recognised by what it is, whatever its file is called,
 * and nothing beyond the marker API is exported for it. */
#define NOTE_NAME "scope-likwid"
#define NOTE_TYPE 0x534c    /* "SL" */

typedef struct sl_note {
    Elf64_Word namesz, descsz, type;
    char name[16];          /* NOTE_NAME and its NUL, padded to 4 bytes */
    Elf64_Word desc;
} sl_note;

/* A section named .note.* is SHT_NOTE: the linker puts it in a PT_NOTE
 * segment, which dl_iterate_phdr shows for every loaded object. */
__attribute__((used, aligned(4), section(".note.scope-likwid")))
static const sl_note own_note = {sizeof NOTE_NAME, sizeof(Elf64_Word), NOTE_TYPE, NOTE_NAME, 1};

/* Whether the object carries the note somewhere else than at own_note. */
static int carries_note(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const void *)p;
            size_t name_len = (n->n_namesz + 3u) & ~3u, desc_len = (n->n_descsz + 3u) & ~3u;
            const char *name = p + sizeof *n;
            if (n->n_type == NOTE_TYPE && n->n_namesz == sizeof NOTE_NAME &&
                name + name_len <= end && memcmp(name, NOTE_NAME, sizeof NOTE_NAME) == 0)
                return (const void *)n != (const void *)&own_note;
            p = name + name_len + desc_len;
        }
    }
    return 0;
}

static int holds(const struct dl_phdr_info *info, uintptr_t addr)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && addr >= lo && addr - lo < ph->p_memsz)
            return 1;
    }
    return 0;
}

typedef struct lookup {
    uintptr_t addr;         /* the object holding this, or 0: the objects before us */
    int found;
    char *path;
    size_t len;
} lookup;

static int visit(struct dl_phdr_info *info, size_t size, void *vp)
{
    lookup *l = vp;
    (void)size;
    if (l->addr) {
        if (!holds(info, l->addr))
            return 0;
        l->found = carries_note(info);
    } else {
        if (holds(info, (uintptr_t)&own_note))
            return 1;       /* the objects after us do not count */
        l->found = carries_note(info);
        if (!l->found)
            return 0;
    }
    if (l->found && l->path && info->dlpi_name) {
        strncpy(l->path, info->dlpi_name, l->len - 1);
        l->path[l->len - 1] = '\0';
    }
    return 1;
}

int sl_other_copy_at(const void *addr, char *path, size_t len)
{
    lookup l = {.addr = (uintptr_t)addr, .path = path, .len = len};
    if (!addr)
        return 0;
    dl_iterate_phdr(visit, &l);
    return l.found;
}

/* A copy loaded after another one stays out: pass-through from the start
 * (the first copy never calls it; a caller that reaches it directly gets
 * LIKWID). */
__attribute__((constructor)) static void later_copy_stays_out(void)
{
    lookup l = {0};
    dl_iterate_phdr(visit, &l);
    if (l.found)
        atomic_store(&sl_mode, SL_MODE_PASS);
}

/* ==== log ==== */

/* The shim's messages (see shim.h). No stdio: the line is formatted into a
 * stack buffer and written with one write(2). */
static atomic_int log_verbose;
static atomic_int log_quiet;

/* The stderr the process started with: messages go there or nowhere. An
 * application that closes fd 2 and opens a data file gets that file on fd
 * 2, before its Init or after; the shim must not write into it. Taken when
 * the library is loaded, before the application's main runs. */
static _Atomic int err_known;
static dev_t err_dev;
static ino_t err_ino;

void sl_log_take_stderr(void)
{
    struct stat st;
    if (fstat(STDERR_FILENO, &st) == 0) {
        err_dev = st.st_dev;
        err_ino = st.st_ino;
        atomic_store(&err_known, 1);    /* publishes dev and ino */
    } else {
        atomic_store(&err_known, -1);   /* no stderr at Init: never write */
    }
}

/* One fstat, nothing else: a process that never calls Init is left alone. */
__attribute__((constructor)) static void stderr_at_load(void)
{
    int saved = errno;
    sl_log_take_stderr();
    errno = saved;
}

static int stderr_is_ours(void)
{
    int k = atomic_load(&err_known);
    if (k == 0)
        return 1;       /* constructors not run (a static test build): stderr as it is */
    struct stat st;
    return k > 0 && fstat(STDERR_FILENO, &st) == 0 && st.st_dev == err_dev &&
           st.st_ino == err_ino;
}

/* Hashes of warnings already printed: enough for "at most once" in practice;
 * when full, further distinct warnings are still printed. */
#define SEEN_MAX 128
static _Atomic uint64_t seen[SEEN_MAX];

void sl_log_configure(int verbose, int quiet)
{
    atomic_store(&log_verbose, verbose);
    atomic_store(&log_quiet, quiet);
}

int sl_log_verbose(void)
{
    return atomic_load_explicit(&log_verbose, memory_order_relaxed);
}

static size_t format_line(char *buf, size_t cap, const char *fmt, va_list ap)
{
    static const char prefix[] = "scope-likwid: ";
    size_t n = sizeof prefix - 1;
    memcpy(buf, prefix, n);
    int k = vsnprintf(buf + n, cap - n - 1, fmt, ap);
    if (k < 0)
        k = 0;
    n += (size_t)k < cap - n - 2 ? (size_t)k : cap - n - 2;
    /* One line: newlines inside (e.g. from a helper's stderr) become blanks. */
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\n' || buf[i] == '\r')
            buf[i] = ' ';
    buf[n++] = '\n';
    return n;
}

/* A stderr pipe whose reader has gone (a logger that died, `| head`)
 * answers the write with SIGPIPE, whose default action kills the
 * application (exit 141, its buffered stdout lost) where it never wrote to
 * stderr itself. Held back in this thread around the write, which then
 * fails with EPIPE; a SIGPIPE the write raised is taken back, one pending
 * before (the application's own) is left, and the mask is restored. */
static void write_no_sigpipe(const char *buf, size_t n)
{
    sigset_t pipe_only, old, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    int was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
    ssize_t w;
    do
        w = write(STDERR_FILENO, buf, n);
    while (w < 0 && errno == EINTR);
    if (w < 0 && errno == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_only, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void emit(const char *buf, size_t n)
{
    int saved = errno;
    if (stderr_is_ours())
        write_no_sigpipe(buf, n);
    errno = saved;
}

static int first_time(const char *text, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)text[i]) * 1099511628211ULL;
    if (h == 0)
        h = 1;
    for (size_t i = 0; i < SEEN_MAX; i++) {
        uint64_t cur = atomic_load(&seen[i]);
        if (cur == h)
            return 0;
        if (cur == 0) {
            uint64_t expected = 0;
            if (atomic_compare_exchange_strong(&seen[i], &expected, h))
                return 1;
            if (expected == h)
                return 0;
        }
    }
    return 1;
}

/* Formats one line and writes it (only the first time it is seen when once). */
static void log_line(int once, const char *fmt, va_list ap)
{
    char buf[1024];
    size_t n = format_line(buf, sizeof buf, fmt, ap);
    if (!once || first_time(buf, n))
        emit(buf, n);
}

/* The three levels: NAME, whether a line is said (read at each call: Init
 * sets the flags), whether it is said once per text. */
#define SL_LOG_LEVEL(NAME, SAID, ONCE)                                                   \
    void NAME(const char *fmt, ...)                                                      \
    {                                                                                    \
        if (!(SAID))                                                                     \
            return;                                                                      \
        va_list ap;                                                                      \
        va_start(ap, fmt);                                                               \
        log_line(ONCE, fmt, ap);                                                         \
        va_end(ap);                                                                      \
    }
SL_LOG_LEVEL(sl_log_warn, !atomic_load(&log_quiet), 1)
SL_LOG_LEVEL(sl_log_info, !atomic_load(&log_quiet), 0)
SL_LOG_LEVEL(sl_log_debug, atomic_load(&log_verbose), 0)
#undef SL_LOG_LEVEL

void sl_log_line_raw(const char *line, size_t n)
{
    if (atomic_load(&log_quiet))
        return;
    emit(line, n);
}
