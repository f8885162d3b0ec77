/* Close, top to bottom: snapshots, LIKWID's Close, the counter sources,
 * the run record, the rescue file, delivery; the next cycle and the exit
 * hook of a process that never closes. */
#include "shim.h"
#include "anchor.h"
#include "diag.h"
#include "fileio.h"
#include "likwid_version.h"
#include "markerfile.h"
#include "name_fit.h"
#include "parse_int.h"
#include "trusted_dir.h"
#include "wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* ==== close ==== */

/* likwid_markerClose as the shim does it: snapshot, forward Close once,
 * collect LIKWID's results through the source chain (sources, below), then
 * hand the whole run to the writer (deliver, below). The process-wide state is read
 * here, once, and passed down explicitly. Nothing here may hurt the
 * application: every failure ends in a status text or a warning. */
static _Atomic int finishing;   /* Close or the exit path: whichever comes first */
/* The thread delivering this cycle's result at Close or at the end of the
 * process, 0: none. */
static _Atomic pid_t delivering_tid;

int sl_close_claim(void)
{
    if (atomic_exchange(&finishing, 1))
        return 0;
    atomic_store(&sl_mode, SL_MODE_CLOSED);
    return 1;
}

void sl_close_rearm(void)
{
    atomic_store(&finishing, 0);
    atomic_store(&delivering_tid, 0);
}

/* Close is one at a time, and whoever returns first sees the result
 * delivered: a second Close, or the end of the process (main returning
 * while another thread closes), waits here for the thread that delivers,
 * as long as that thread lives (every step of its delivery has a
 * deadline). Not when this very thread is the one delivering (a signal
 * handler that interrupted its own Close). */
void sl_close_await(void)
{
    pid_t me = gettid(), self_pid = getpid(), t;
    while ((t = atomic_load(&delivering_tid)) != 0 && t != me && self_pid == sl_g.pid &&
           tgkill(self_pid, t, 0) == 0) {
        struct timespec nap = {0, 2000000};
        nanosleep(&nap, NULL);
    }
}

void sl_close_delivering(int on)
{
    atomic_store(&delivering_tid, on ? gettid() : 0);
    sl_signals_finishing(on);
}

void sl_deliver_in_from(const sl_state *g, sl_deliver_in *in)
{
    *in = (sl_deliver_in){.output = g->output, .pid = g->pid, .parent_pid = g->parent_pid,
                          .mpi = g->mpi, .rank = g->rank,
                          .origin_unix_ns = g->origin_unix_ns, .writer = g->cfg.writer,
                          .timeout_s = g->cfg.timeout_s};
}

/* Why there are no counters, for the status text. */
static void not_counting(const sl_state *g, const sl_real_api *r, sl_text *status)
{
    if (!r->close)
        sl_text_add(status, "LIKWID not counting (the application is not linked with LIKWID); "
                            "timing only");
    else
        sl_text_add(status, "LIKWID not counting (%s); timing only",
                    g->not_counting ? g->not_counting : "LIKWID_FILEPATH not set");
}

/* What LIKWID yields, with the status text; g read only. */
static void counters(const sl_state *g, const sl_real_api *r, const char *markerpath,
                     int64_t group, int by_group, sl_likwid *lw, sl_text *status)
{
    int counting = g->counting && r->close && markerpath;
    sl_likwid snap;
    sl_likwid_init(&snap);
    const char *snap_why = NULL;
    if (counting && (g->cfg.sources & SL_SRC_MARKER_API))
        snap_why = sl_snapshots_take(r, group, by_group, &snap);
    if (r->close)
        r->close();
    if (!counting) {
        not_counting(g, r, status);
    } else {
        char *lib = sl_real_library(r);
        sl_sources_in in = {.markerfile = markerpath, .sources = g->cfg.sources,
                            .collector = g->cfg.collector, .liblikwid = lib,
                            .timeout_s = g->cfg.timeout_s, .snap_why = snap_why};
        sl_sources_collect(&in, &snap, lw, status);
        free(lib);
    }
    sl_likwid_free(&snap);
}

/* Batches of cycles where LIKWID does not count (below, "cycle"):
 * batch_defer, at Close of cycle g->cycle: 1 when it joins the pending
 * batch and writes only the batch file; batch_status: the status's cycle
 * part ("cycle N", or "cycles A to N" with a batch pending);
 * batch_delivered: the pending batch went with the result just delivered
 * (saved: 0 when nothing could be saved, and the batch file stays);
 * batch_file_saved: a result of the running cycle, written at the end of
 * the process or an exec, holds the batch too: its file goes. */
static int batch_defer(const sl_state *g, int counting);
static void batch_status(const sl_state *g, sl_text *status);
static void batch_delivered(int saved);
static void batch_file_saved(void);

/* ---- a stack with room ---- */

/* Close and the exit path call into libc, the status text, the rescue
 * file and the helpers: tens of KiB of stack (no frame over 4 KiB, but
 * many). A crash handler on a small alternate signal stack (8 KiB is
 * common: SIGSTKSZ) that calls Close or the exit function would overflow it into
 * whatever lies below. There the work runs on a stack of its own (1 MiB,
 * mapped for the call, only what is used is touched), with every signal
 * blocked while it does: on our stack the kernel would deliver a signal
 * for the alternate stack at its top, over the interrupted handler's
 * frames. */
#define ROOMY_STACK ((size_t)1 << 20)
#define ROOM_NEEDED ((size_t)128 << 10)

/* The two contexts and the function lie at the bottom of the mapped stack
 * (each thread on a small stack has its own; no thread-local variable,
 * which would make the shim need the dynamic loader's __tls_get_addr). */
typedef struct roomy {
    ucontext_t caller, callee;
    void (*fn)(void);
} roomy;

/* makecontext passes ints: the struct's address in two halves. */
static void roomy_entry(unsigned hi, unsigned lo)
{
    roomy *r = (roomy *)(((uintptr_t)hi << 32) | lo);
    r->fn();
}

/* Whether the caller runs on an alternate signal stack with less than
 * ROOM_NEEDED left. */
static int on_small_altstack(void)
{
    stack_t ss;
    if (sigaltstack(NULL, &ss) != 0 || !(ss.ss_flags & SS_ONSTACK))
        return 0;
    char here;
    uintptr_t sp = (uintptr_t)&here, lo = (uintptr_t)ss.ss_sp;
    return sp < lo || sp - lo < ROOM_NEEDED;
}

static void with_room(void (*fn)(void))
{
    void *stack = MAP_FAILED;
    if (on_small_altstack())
        stack = mmap(NULL, ROOMY_STACK, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    roomy *r = stack;
    if (stack == MAP_FAILED || getcontext(&r->callee) != 0) {
        if (stack != MAP_FAILED)
            munmap(stack, ROOMY_STACK);
        fn();
        return;
    }
    r->fn = fn;
    size_t used = (sizeof *r + 63) & ~(size_t)63;
    r->callee.uc_stack.ss_sp = (char *)stack + used;
    r->callee.uc_stack.ss_size = ROOMY_STACK - used;
    r->callee.uc_link = &r->caller;
    sigfillset(&r->callee.uc_sigmask);
    uintptr_t at = (uintptr_t)r;
    makecontext(&r->callee, (void (*)(void))roomy_entry, 2, (unsigned)(at >> 32),
                (unsigned)(at & 0xffffffffu));
    swapcontext(&r->caller, &r->callee);
    munmap(stack, ROOMY_STACK);
}

/* The root directory at the first Init: after a chroot every path the
 * shim took at Init names a file outside the new root. */
static dev_t root_dev;
static ino_t root_ino;

void sl_root_note(void)
{
    struct stat st;
    if (root_ino == 0 && stat("/", &st) == 0) {
        root_dev = st.st_dev;
        root_ino = st.st_ino;
    }
}

int sl_root_changed(void)
{
    struct stat st;
    return root_ino != 0 && stat("/", &st) == 0 &&
           (st.st_dev != root_dev || st.st_ino != root_ino);
}

/* After delivery the journal goes. A process that dropped its privileges
 * or changed its root since Init (a service: root, then nobody) may not
 * remove it any more: one line names it (its result is delivered, so
 * recover only removes it). */
static void survive_end(void)
{
    const char *j = sl_journal_path();
    char *path = j[0] ? strdup(j) : NULL;
    sl_survive_end();
    if (!path)
        return;
    /* Still there (or out of sight), and its directory closed to us: ours,
     * left. A name another file took since is not ours to speak of. */
    char *slash = strrchr(path, '/');
    int e = 0;
    if ((sl_at_access(path, F_OK) == 0 || errno != ENOENT) && slash) {
        *slash = '\0';
        e = sl_at_access(path[0] ? path : "/", W_OK | X_OK) != 0 ? errno : 0;
        *slash = '/';
    }
    if (e || sl_anchor_lost())
        sl_log_warn("could not remove the journal %s (%s%s since likwid_markerInit); its "
                    "timing is in the result or rescue file above: 'scope-likwid recover %s' "
                    "removes it", path, e ? strerror(e) : "",
                    e ? ": the process changed its user or root"
                      : "the process changed its root directory", path);
    free(path);
}

/* The writer started at the start of a Close whose collector runs: its
 * start (HDF5 and its libraries) goes on while the collector loads LIKWID,
 * on the other core; it waits for the rescue file's name (run_writer).
 * Not through run's helper host, whose helpers the application's
 * getrusage never counts: there the writer starts as before. 1: started. */
static int early_writer(const sl_state *g, int counting, sl_spawn_job *job)
{
    if (!counting || !(g->cfg.sources & SL_SRC_FULL_API) || sl_host_configured())
        return 0;
    char *missing = NULL;
    char *writer = sl_helper_path(g->cfg.writer, "scope-likwid-write", &missing);
    free(missing);
    char secs[32], pid[24];
    /* bounded: a process killed before it hands the names leaves no writer */
    snprintf(secs, sizeof secs, "%g", 2 * g->cfg.timeout_s + 30);
    snprintf(pid, sizeof pid, "%lld", (long long)getpid());
    const char *argv[] = {writer, "--await", secs, pid, NULL};
    int rc = writer ? sl_helper_start_fed(argv, job) : -ENOENT;
    free(writer);
    return rc == 0;
}

static void close_run(void);

void sl_close_run(void)
{
    with_room(close_run);
}

static void close_run(void)
{
    if (!sl_close_claim()) {
        sl_close_await();   /* a second Close, from any thread: answered here */
        return;
    }
    sl_close_delivering(1);
    sl_exit_superseded();   /* a Close from an exit handler replaces the exit hook's result */
    const sl_state *g = &sl_g;
    int ng = g->ngroups > 0 ? g->ngroups : 1;
    int64_t group = atomic_load(&sl_next_group_calls) % ng;
    /* LIKWID 5.5 keeps every thread's regions in group 0 whatever
     * NextGroup switched to: its GetRegion answers from those */
    char version[32];
    sl_real_likwid_version(sl_cycle_api(), version, sizeof version);
    int by_group = sl_likwid_minor(version) < 5;
    if (!by_group)
        group = 0;
    sl_likwid lw;
    sl_likwid_init(&lw);
    const sl_real_api *r = sl_cycle_api();
    const char *markerpath = secure_getenv("LIKWID_FILEPATH");
    if (batch_defer(g, g->counting && r->close && markerpath)) {
        /* Nothing to count, and this cycle's calls wait in the tables for
         * the batch's delivery (below, "cycle"), and on disk in the batch
         * file meanwhile. LIKWID closes as without the shim. */
        if (r->close)
            r->close();
        sl_fork_deliver_parent();
        sl_cycle_close_done();
        sl_close_delivering(0);
        return;
    }
    sl_spawn_job early;
    int have_early = early_writer(g, g->counting && r->close && markerpath, &early);
    sl_text status = {0};
    batch_status(g, &status);
    counters(g, r, markerpath, group, by_group, &lw, &status);
    sl_deliver_in in;
    sl_deliver_in_from(g, &in);
    if (strcmp(version, "unknown") != 0)
        in.likwid_version = version;
    in.early = have_early ? &early : NULL;
    int saved = sl_deliver(&in, &lw, status.s ? status.s : "") == 0;
    if (have_early)
        sl_spawn_dismiss(&early);   /* not needed: nothing was handed to it */
    free(status.s);
    sl_likwid_free(&lw);
    if (saved)
        survive_end();      /* else the journal is the last copy: it stays */
    batch_delivered(saved);
    sl_fork_deliver_parent();
    sl_cycle_close_done();
    sl_close_delivering(0);
}

/* ==== sources ==== */

/* The counter source chain and the closing thread's snapshots (see
 * shim.h). */
#define SNAPSHOT_EVENTS 256

typedef struct snap_ctx {
    const sl_real_api *r;
    sl_likwid *lw;
    int64_t group;
} snap_ctx;

static void snap_one(void *vctx, const char *tag)
{
    snap_ctx *c = vctx;
    double events[SNAPSHOT_EVENTS];
    int nr = SNAPSHOT_EVENTS, count = 0;
    double time = 0;
    memset(events, 0, sizeof events);
    c->r->get(tag, &nr, events, &time, &count);
    if (count <= 0)
        return;     /* as in the marker file: regions without calls are left out */
    if (nr < 0 || nr > SNAPSHOT_EVENTS)
        nr = 0;
    sl_region *reg = sl_likwid_add(c->lw, tag, strlen(tag), c->group, "", SL_SOURCE_MARKER_API,
                                   1, (size_t)nr, 0, 0);
    if (!reg)
        return;
    int cpu = sched_getcpu();
    reg->cpus[0] = cpu;
    reg->times[0] = time;
    reg->call_counts[0] = count;
    for (int e = 0; e < nr; e++)
        reg->events[e] = events[e];
}

const char *sl_snapshots_take(const sl_real_api *r, int64_t group, int by_group,
                              sl_likwid *snap)
{
    sl_rt_thread *t = sl_rt_self();
    if (!t || !r->get)
        return NULL;
    if (by_group) {
        cpu_set_t cpus;
        if (sched_getaffinity(0, sizeof cpus, &cpus) != 0 || CPU_COUNT(&cpus) != 1)
            return "not taken: the closing thread is not bound to one CPU, and LIKWID 5.2 to "
                   "5.4 keep regions per CPU (a GetRegion could add an empty one, which changes "
                   "what their Close prints and writes)";
        sl_rt_mark_group(group);
    }
    snap_ctx c = {r, snap, group};
    sl_rt_each_started(t, by_group ? group : -1, snap_one, &c);
    if (snap->nregions)
        snap->source = SL_SOURCE_MARKER_API;
    else if (by_group)
        return "no region was measured by the closing thread in LIKWID's active group";
    return NULL;
}

int sl_sources_collect(const sl_sources_in *in, sl_likwid *snap, sl_likwid *lw,
                       sl_text *status)
{
    int have = 0;
    if (in->sources & (SL_SRC_FULL_API | SL_SRC_MARKER_FILE) &&
        sl_source_markerfile_ok(in->markerfile, status)) {
        if (in->sources & SL_SRC_FULL_API) {
            have = sl_source_collector(in, lw, status);
            if (have)
                sl_text_add(status, "used full_api");
        }
        if (!have && (in->sources & SL_SRC_MARKER_FILE))
            have = sl_source_markerfile(in->markerfile, lw, status);
    }
    if (!have && (in->sources & SL_SRC_MARKER_API)) {
        if (snap->nregions) {
            sl_likwid_free(lw);
            *lw = *snap;
            sl_likwid_init(snap);
            sl_text_add(status, "used marker_api");
            have = 1;
        } else {
            sl_text_add(status, "marker_api: %s",
                        in->snap_why ? in->snap_why
                                     : "no region was measured by the closing thread");
        }
    }
    if (!have)
        sl_text_add(status, "no counter data");
    return have;
}

/* ==== source collector ==== */

/* The collector's "note:" lines on stderr (what it left out of a good
 * answer, and why) go into the status. */
static void collector_notes(const char *err, size_t len, sl_text *status)
{
    static const char tag[] = "scope-likwid-collect: note: ";
    for (size_t pos = 0; err && pos < len;) {
        const char *p = err + pos;
        const char *nl = memchr(p, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - p) : len - pos;
        pos += n + 1;
        if (n > sizeof tag - 1 && memcmp(p, tag, sizeof tag - 1) == 0)
            sl_text_add(status, "full_api: %.*s", (int)(n - (sizeof tag - 1)),
                        p + sizeof tag - 1);
    }
}

/* full_api: the collector helper reads the marker file with LIKWID's own
 * reader in a separate process (so LIKWID's perfmon never loads into the
 * application) and answers in the wire format. */
int sl_source_collector(const sl_sources_in *in, sl_likwid *lw, sl_text *status)
{
    char *missing;
    char *collector = sl_helper_path(in->collector, "scope-likwid-collect", &missing);
    if (!collector) {
        sl_text_add(status, "full_api failed: collector %s", missing ? missing : "not found");
        free(missing);
        return 0;
    }
    /* the collector reads with the LIKWID the application loaded, and with
     * the clock and access daemon it found: the collector's LIKWID need not
     * look for them again */
    sl_likwid_setup setup;
    sl_real_likwid_setup(in->liblikwid, &setup);
    const char *argv[] = {collector, in->markerfile, in->liblikwid,
                          setup.cycle_hz[0] ? setup.cycle_hz : NULL, setup.cpu_hz,
                          setup.accessd, NULL};
    sl_spawn_result res;
    sl_log_debug("running %s %s %s %s %s", collector, in->markerfile,
                 in->liblikwid ? in->liblikwid : "(no liblikwid found)",
                 setup.cycle_hz[0] ? setup.cycle_hz : "(no clock)",
                 setup.accessd ? setup.accessd : "(no access daemon)");
    sl_helper_run(argv, in->timeout_s, &res);
    sl_log_debug("collector: outcome %d, status %d, signal %d, %zu bytes out, %zu bytes err",
                 (int)res.outcome, res.exit_code, res.signal, res.out_len, res.err_len);
    int ok = 0;
    char *why = NULL;
    if (res.outcome == SL_SPAWN_EXITED && res.exit_code == 0 && !res.truncated) {
        ok = 1;
    } else if (res.outcome == SL_SPAWN_NO_STATUS && !res.truncated) {
        ok = 1;     /* judged by the output alone: its trailer says if it is complete */
    } else if (res.truncated) {
        why = strdup("output larger than 256 MiB");
    } else {
        why = sl_spawn_describe(&res, in->timeout_s);
    }
    if (ok) {
        sl_diag d;
        sl_diag_init(&d);
        int rc = sl_wire_read_likwid(res.out, res.out_len, "collector output", lw, &d);
        if (rc == 0) {
            lw->source = SL_SOURCE_FULL_API;
            sl_log_debug("full_api: %zu regions", lw->nregions);
            collector_notes(res.err, res.err_len, status);
        } else {
            ok = 0;
            char *last = sl_last_line(res.err, res.err_len);
            sl_text_add(status, "full_api failed: garbage output: %s%s%s%s",
                        d.kept ? d.lines[0] : strerror(-rc), last && *last ? " (stderr: " : "",
                        last && *last ? last : "", last && *last ? ")" : "");
            free(last);
            sl_likwid_free(lw);
            sl_likwid_init(lw);
        }
        sl_diag_free(&d);
    } else {
        sl_text_add(status, "full_api failed: collector %s", why ? why : "failed");
    }
    free(why);
    free(collector);
    free(setup.accessd);
    sl_spawn_result_free(&res);
    return ok;
}

/* ==== source markerfile ==== */

/* marker_file: LIKWID's marker file read by the shim's own reader (core/),
 * when the collector could not answer; and the check, before either reads
 * it, that the file is this run's. */
/* LIKWID_FILEPATH as it was at this cycle's Init. Two runs in the same
 * second that share the path, the second one's LIKWID writing nothing:
 * the file is the first run's. The file as it was at Init tells exactly:
 * unchanged at Close (same device, inode, size, and nanosecond mtime and
 * ctime) means LIKWID did not write it. Only for a path that was not the
 * one at Init does the file's own time decide: older than Init (in
 * nanoseconds; in seconds where the file system keeps whole seconds). */
static struct {
    char *path;             /* NULL: LIKWID_FILEPATH not set at Init */
    int existed;            /* and st holds it */
    struct stat st;
    struct timespec init;   /* CLOCK_REALTIME_COARSE: what file times are taken from */
} at_init;

void sl_markerfile_note_init(void)
{
    clock_gettime(CLOCK_REALTIME_COARSE, &at_init.init);
    free(at_init.path);
    const char *p = secure_getenv("LIKWID_FILEPATH");
    at_init.path = p ? strdup(p) : NULL;
    at_init.existed = at_init.path && stat(at_init.path, &at_init.st) == 0;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static int older_than_init(const struct timespec *m)
{
    if (m->tv_nsec == 0)    /* whole seconds: the file may be of Init's second */
        return m->tv_sec < at_init.init.tv_sec;
    return m->tv_sec < at_init.init.tv_sec ||
           (m->tv_sec == at_init.init.tv_sec && m->tv_nsec < at_init.init.tv_nsec);
}

int sl_source_markerfile_ok(const char *path, sl_text *status)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        sl_text_add(status, "LIKWID wrote no marker file (%s: %s)", path, strerror(errno));
        return 0;
    }
    /* A FIFO or device could block or never end: never opened. */
    if (!S_ISREG(st.st_mode)) {
        sl_text_add(status, "LIKWID_FILEPATH %s is not a regular file", path);
        return 0;
    }
    if (at_init.path && strcmp(at_init.path, path) == 0) {
        if (at_init.existed && same_file(&at_init.st, &st)) {
            sl_text_add(status, "marker file %s is unchanged since this run's Init: LIKWID did "
                                "not write it", path);
            return 0;
        }
        return 1;   /* made or rewritten since Init */
    }
    if (older_than_init(&st.st_mtim)) {
        sl_text_add(status, "marker file %s is older than this run: LIKWID did not write it",
                    path);
        return 0;
    }
    return 1;
}

/* Moves the regions without a single value line (a file cut off or damaged
 * after its region list) out of lw and frees them; returns how many. LIKWID
 * leaves regions without calls out of its file, so such a region says
 * nothing, and if every region is like that the closing thread's marker_api
 * snapshots are worth more than an empty marker_file result. */
static size_t drop_empty_regions(sl_likwid *lw)
{
    size_t empty = 0;
    for (size_t i = 0; i < lw->nregions; i++)
        empty += lw->regions[i].nthreads == 0;
    if (!empty)
        return 0;
    sl_likwid gone;
    sl_likwid_init(&gone);
    gone.regions = calloc(empty, sizeof *gone.regions);
    if (!gone.regions)
        return 0;   /* keep them: harmless, only useless */
    size_t k = 0;
    for (size_t i = 0; i < lw->nregions; i++) {
        if (lw->regions[i].nthreads == 0)
            gone.regions[gone.nregions++] = lw->regions[i];
        else
            lw->regions[k++] = lw->regions[i];
    }
    gone.cap = gone.nregions;
    lw->nregions = k;
    sl_likwid_free(&gone);
    return empty;
}

static int fail(sl_likwid *lw, sl_diag *d)
{
    sl_likwid_free(lw);
    sl_likwid_init(lw);
    sl_diag_free(d);
    return 0;
}

int sl_source_markerfile(const char *path, sl_likwid *lw, sl_text *status)
{
    sl_diag d;
    sl_diag_init(&d);
    sl_markerfile_info info = {0};
    int rc = sl_markerfile_read(path, 0, lw, &info, &d);
    if (rc != 0) {
        sl_text_add(status, "marker_file failed: %s", d.kept ? d.lines[0] : strerror(-rc));
        return fail(lw, &d);
    }
    size_t empty = drop_empty_regions(lw);
    if (lw->nregions == 0) {
        int defect = info.skipped_lines && d.kept;
        sl_text_add(status, "marker_file failed: no region has a value line%s%s%s",
                    defect ? " (first defect: " : "", defect ? d.lines[0] : "",
                    defect ? ")" : "");
        return fail(lw, &d);
    }
    if (empty)
        sl_text_add(status, "marker_file: %zu regions without any value line left out", empty);
    if (info.lost_lines)
        sl_text_add(status, "marker_file: %zu value lines hold only -22 (LIKWID 5.5's -EINVAL: "
                            "values it lost): those threads have no counters", info.lost_lines);
    lw->source = SL_SOURCE_MARKER_FILE;
    if (info.skipped_lines)
        sl_text_add(status, "used marker_file (%zu defective lines skipped; first: %s)",
                    info.skipped_lines, d.kept ? d.lines[0] : "?");
    else
        sl_text_add(status, "used marker_file");
    sl_diag_free(&d);
    return 1;
}

/* ==== status text ==== */

/* The likwid_status text (see shim.h). */
void sl_text_add(sl_text *t, const char *fmt, ...)
{
    char piece[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    size_t a = t->s ? strlen(t->s) : 0, b = strlen(piece);
    char *g = realloc(t->s, a + b + 3);
    if (!g)
        return;
    if (a) {
        memcpy(g + a, "; ", 2);
        a += 2;
    }
    memcpy(g + a, piece, b + 1);
    t->s = g;
}

/* ==== run record ==== */

/* What the result file says about the process (see shim.h). */
extern char **environ;

/* Calls fn(ctx, name, value) for every environment variable whose name
 * starts with prefix (names of 256 bytes or more are passed over). */
void sl_each_env(const char *prefix, void (*fn)(void *ctx, const char *name, const char *value),
                 void *ctx)
{
    size_t plen = strlen(prefix);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || strncmp(*e, prefix, plen) != 0)
            continue;
        char name[256];
        size_t n = (size_t)(eq - *e);
        if (n >= sizeof name)
            continue;
        memcpy(name, *e, n);
        name[n] = '\0';
        fn(ctx, name, eq + 1);
    }
}

static void add_env(void *run, const char *name, const char *value)
{
    sl_run_add_env(run, name, value);
}

/* first_only: up to the first NUL (a command line's program name, its
 * arguments left out: SCOPE_LIKWID_ARGS=0). */
static char *read_text(const char *path, int nul_to_blank, int first_only)
{
    char *buf;
    size_t len;
    if (sl_read_file(path, 1 << 20, &buf, &len) != 0)
        return strdup("");
    if (first_only)
        len = strlen(buf);
    while (len > 0 && buf[len - 1] == '\0')
        len--;
    buf[len] = '\0';
    if (nul_to_blank)
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
    return buf;
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
    char *cmd = read_text("/proc/self/cmdline", 1, !sl_g.cfg.keep_args);
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

/* ==== run meta ==== */

/* The run's metadata for /metadata (docs/FORMAT.md): what scope-profiler's
 * run metadata holds, from the environment and the run's own timing. */
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
int64_t sl_omp_threads_known(void)
{
    int64_t v = leading_count(getenv("OMP_NUM_THREADS"));
    if (v > 0)
        return v;
    int (*max_threads)(void) = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    memcpy(&max_threads, &sym, sizeof max_threads); /* void* to function: -Wpedantic */
    if (max_threads && (v = max_threads()) > 0)
        return v;
    return cpus_allowed();
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

/* ==== rescue ==== */

/* The rescue file (see shim.h). */
static int write_rescue_at(const char *path, const sl_run *run)
{
    int fd = sl_at_open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, SL_MODE_PRIVATE);
    /* Every descriptor taken: the journal's kept one is the spare. */
    if (fd < 0 && errno == EMFILE && sl_journal_spare_fd())
        fd = sl_at_open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        SL_MODE_PRIVATE);
    if (fd < 0)
        return -errno;
    /* The owner's alone whatever the umask (it holds the command line and
     * the environment's SLURM_ values; the writer and convert must read
     * it). */
    fchmod(fd, SL_MODE_PRIVATE);
    int rc = sl_wire_write_run(fd, run);
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc != 0)
        sl_at_unlink(path);
    return rc;
}

/* A file-size limit (ulimit -f) answers a too-large write with SIGXFSZ,
 * whose default action kills the application: found by the fault test
 * fault-output-fsize-limit (exit status 153 instead of 0). Held back in this
 * thread while the shim writes, the write fails with EFBIG instead; a
 * SIGXFSZ raised meanwhile is taken back, one pending before is left. */
typedef struct xfsz_guard {
    sigset_t old;
    int was_pending;
} xfsz_guard;

static void xfsz_hold(xfsz_guard *g)
{
    sigset_t s, p;
    sigemptyset(&s);
    sigaddset(&s, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &s, &g->old);
    g->was_pending = sigpending(&p) == 0 && sigismember(&p, SIGXFSZ) == 1;
}

static void xfsz_release(xfsz_guard *g)
{
    sigset_t s, p;
    sigemptyset(&s);
    sigaddset(&s, SIGXFSZ);
    if (!g->was_pending && sigpending(&p) == 0 && sigismember(&p, SIGXFSZ) == 1) {
        struct timespec zero = {0, 0};
        sigtimedwait(&s, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

/* Writes at the derived name (kept within NAME_MAX: the application's
 * output name may be 255 bytes): 0 with *out set, or -errno. */
static int write_at(const char *dir, const char *base, const char *suffix, const sl_run *run,
                    char **out)
{
    char *path = dir ? sl_name_fit_in(dir, "", base, suffix) : sl_name_fit(base, "", suffix);
    if (!path)
        return errno == ENAMETOOLONG ? -ENAMETOOLONG : -ENOMEM;
    int rc = write_rescue_at(path, run);
    if (rc == 0)
        *out = path;
    else
        free(path);
    return rc;
}

static char *write_guarded(const sl_run *run, const char *output, pid_t pid, char *why,
                           size_t why_len)
{
    char *path = NULL;
    int rc = write_at(NULL, output, ".rescue", run, &path);
    if (rc == 0)
        return path;
    snprintf(why, why_len, "%s.rescue: %s", output, strerror(-rc));
    const char *base = strrchr(output, '/');
    base = base ? base + 1 : output;
    /* TMPDIR, then /tmp: only where no other user can change what is in it */
    const char *dirs[] = {sl_spare_dir(0), sl_spare_dir(1)};
    for (int i = 0; i < 2; i++) {
        if (!dirs[i])
            continue;
        for (int k = 0; k < 100; k++) {
            char suffix[64];
            snprintf(suffix, sizeof suffix, ".%lld.%d.rescue", (long long)pid, k);
            rc = write_at(dirs[i], base, suffix, run, &path);
            if (rc == 0)
                return path;
            if (rc != -EEXIST)
                break;
        }
    }
    return NULL;
}

char *sl_rescue_write(const sl_run *run, const char *output, pid_t pid, char *why,
                      size_t why_len)
{
    xfsz_guard g;
    xfsz_hold(&g);
    char *path = write_guarded(run, output, pid, why, why_len);
    xfsz_release(&g);
    return path;
}

/* ==== deliver ==== */

/* Rescue file, then the writer helper (see shim.h). */
static const char no_file[] = "";

/* Whether last (the writer's last line) names a result it wrote for this
 * process (proof.c): NULL when it does; no_file when it names no file;
 * else why not. into: the result made before a change of user (-1:
 * none), which the writer fills through its stdin; made: its name. */
static const char *not_ours(const char *last, const sl_spawn_result *res, int into,
                            const char *made)
{
    struct stat st;
    if (!last || !*last)
        return no_file;
    if (into >= 0)
        return strcmp(last, made) != 0 ? "it is not the file made for the result"
                                       : sl_proof_check_fd(into, res->out, res->out_len);
    if (sl_at_stat(last, &st, 0) != 0 || !S_ISREG(st.st_mode))
        return no_file;
    return sl_proof_check(last, res->out, res->out_len);
}

/* The writer started at Close (early_writer) given the rescue file and the
 * output. One that ended before it took them (it says "taken" first) is
 * started again as at any Close, with one warning: it had nothing yet.
 * 1: res is its run; 0: start the writer. */
static int fed_writer(sl_spawn_job *early, const char *rescue, const char *output,
                      double timeout_s, sl_spawn_result *res)
{
    char *names = NULL;
    int rc = asprintf(&names, "%s\n%s\n", rescue, output) < 0 ? -ENOMEM
             : sl_spawn_feed(early, names, strlen(names));
    free(names);
    char *d = NULL;
    if (rc == -ENOMEM) {
        sl_spawn_dismiss(early);
        memset(res, 0, sizeof *res);
    } else {
        /* fed or gone (EPIPE): its end, as of any helper */
        sl_spawn_finish(early, timeout_s, res);
        if (res->out_len >= 6 && memcmp(res->out, "taken\n", 6) == 0)
            return 1;
        d = sl_spawn_describe(res, timeout_s);
    }
    sl_log_warn("the writer started at likwid_markerClose ended before it was given %s (%s): "
                "starting it again", rescue, d ? d : "out of memory");
    free(d);
    sl_spawn_result_free(res);
    return 0;
}

/* Runs the writer; returns the written path (newly allocated) or NULL with
 * the reason in why. A result made before the process changed its user is
 * filled through its held descriptor (the writer's stdin), else the writer
 * creates the file (temporary name, then linked into place). */
static char *run_writer(const sl_deliver_in *in, const char *rescue, char *why, size_t why_len)
{
    char *missing;
    char *writer = sl_helper_path(in->writer, "scope-likwid-write", &missing);
    if (!writer) {
        snprintf(why, why_len, "writer %s", missing ? missing : "not found");
        free(missing);
        return NULL;
    }
    const char *made = NULL;
    int into = sl_anchor_result(in->output, &made);
    const char *argv_new[] = {writer, rescue, in->output, NULL};
    const char *argv_into[] = {writer, "--into-stdin", rescue, made, NULL};
    sl_spawn_result res;
    /* The writer is our own code working on data already saved: its time
     * grows with the data (HDF5's per-object cost), not with LIKWID's
     * hazards. It gets the timeout plus one second per MiB of rescue file,
     * so a large run is written, not left as a rescue file. */
    struct stat rst;
    double timeout_s = in->timeout_s;
    if (sl_at_stat(rescue, &rst, 0) == 0)
        timeout_s += (double)rst.st_size / (1024.0 * 1024.0);
    sl_log_debug("running %s %s %s (timeout %g s)", writer, rescue, into >= 0 ? made : in->output,
                 timeout_s);
    int fed = in->early && into < 0 && fed_writer(in->early, rescue, in->output, timeout_s, &res);
    if (in->early)
        sl_spawn_dismiss(in->early);    /* a result made before a change of user */
    if (!fed)
        sl_helper_run_in(into >= 0 ? argv_into : argv_new, timeout_s, into, &res);
    sl_log_debug("writer: outcome %d, status %d, signal %d", (int)res.outcome, res.exit_code,
                 res.signal);
    char *written = NULL;
    struct stat st;
    int ok = res.outcome == SL_SPAWN_EXITED ? res.exit_code == 0
                                            : res.outcome == SL_SPAWN_NO_STATUS;
    /* What it named counts only when it is a result it wrote for us
     * (proof.c): whoever else answers cannot make us drop the rescue
     * file and the journal. */
    char *last = sl_last_line(res.out, res.out_len);
    const char *bad = not_ours(last, &res, into, made);
    if (!ok && res.outcome != SL_SPAWN_FAILED && sl_at_stat(rescue, &st, 0) != 0 &&
        errno == ENOENT && !bad) {
        /* Killed at the deadline or by a signal after it had put the
         * result in place and removed the rescue file: written, as it
         * named the file. */
        written = last;
    } else if (ok && !bad) {
        written = last;
    } else if (ok && bad != no_file) {
        snprintf(why, why_len, "the writer named %s, which is not a result it wrote for "
                 "this process: %s", last, bad);
    } else if (ok) {
        char *err = sl_last_line(res.err, res.err_len);
        snprintf(why, why_len, "the writer named no written file%s%s",
                 err && *err ? ": " : "", err && *err ? err : "");
        free(err);
    } else {
        char *d = sl_spawn_describe(&res, timeout_s);
        snprintf(why, why_len, "writer %s", d ? d : "failed");
        free(d);
    }
    if (!written)
        free(last);
    sl_spawn_result_free(&res);
    free(writer);
    return written;
}

/* After a writer that did not fill the result made before a change of
 * user: what is left of it (emptied, when still held) goes into why. */
static void made_left(const sl_deliver_in *in, char *why, size_t why_len)
{
    const char *made = sl_anchor_result_name(in->output);
    if (!made)
        return;
    int fd = sl_anchor_result(in->output, NULL);
    size_t n = strlen(why);
    if (fd >= 0 && ftruncate(fd, 0) == 0)
        snprintf(why + n, why_len - n, "; %s, made for the result when the process changed "
                 "its user, is left empty", made);
    else if (fd < 0)
        snprintf(why + n, why_len - n, "; %s, made for the result when the process changed "
                 "its user, could not be written: its descriptor was closed (by the "
                 "application)", made);
}

int sl_deliver(const sl_deliver_in *in, sl_likwid *lw, const char *status)
{
    return sl_deliver_keep(in, lw, status, NULL);
}

int sl_deliver_keep(const sl_deliver_in *in, sl_likwid *lw, const char *status,
                    sl_delivered *out)
{
    sl_run run;
    if (sl_run_init(&run) != 0) {
        sl_log_warn("could not write %s (out of memory): results lost", in->output);
        return -1;
    }
    /* Calls that found no room for their per-call record are counted (and
     * timed) all the same: the status says how many, and of how many
     * threads. */
    size_t nthreads = 0;
    int64_t ncalls = sl_rt_room_dropped(&nthreads);
    char *full = NULL;
    if (ncalls > 0 &&
        asprintf(&full, "%s%s%lld call%s of %zu thread%s kept no per-call record (no room for "
                 "samples: counted in dropped_calls, their times in the totals)", status,
                 status[0] ? "; " : "", (long long)ncalls, ncalls == 1 ? "" : "s", nthreads,
                 nthreads == 1 ? "" : "s") < 0)
        full = NULL;
    if (full)
        status = full;
    sl_run_record_fill(&run, in, lw, status);
    sl_log_debug("likwid_status: %s", status);
    free(full);
    /* The reasons on the heap: Close may run on a thread with a small stack. */
    enum { WHY = 1024, RESCUE_WHY = PATH_MAX + 256 };
    char *why = calloc(1, WHY + RESCUE_WHY), *rescue_why = why ? why + WHY : NULL;
    char *rescue = why ? sl_rescue_write(&run, in->output, in->pid, rescue_why, RESCUE_WHY) : NULL;
    sl_run_free(&run);
    if (!rescue) {
        /* The journal (it stays when nothing else was saved) still holds
         * the timing of this cycle: say so, and how to get it. After a
         * chroot the names are those outside it, where the user is. */
        const char *j = sl_journal_path();
        sl_journal_mark_unsaved();
        if (why)
            made_left(in, rescue_why, RESCUE_WHY);
        if (j[0])
            sl_log_warn("could not write %s: could not save the rescue file (%s%s); the timing "
                        "data stays in the journal %s: recover it with 'scope-likwid recover %s'",
                        in->output, why ? rescue_why : "out of memory",
                        sl_anchor_lost() ? "; the process changed its root directory since "
                                           "likwid_markerInit" : "", j, j);
        else
            sl_log_warn("could not write %s: could not save the rescue file (%s): results lost",
                        in->output, why ? rescue_why : "out of memory");
        free(why);
        return -1;
    }
    sl_journal_mark_delivering(rescue);
    char *written = run_writer(in, rescue, why, WHY);
    /* a rescue file made by name in a new root lies inside it */
    const char *inside = sl_anchor_lost() ? " (inside the root directory the process changed "
                                            "to since likwid_markerInit)" : "";
    if (!written)
        made_left(in, why, WHY);
    if (written) {
        sl_anchor_result_release();
        sl_at_unlink(rescue);   /* the writer removed it already; an older writer did not */
        if (!out)
            sl_log_info("wrote %s", written);
        sl_run_report("wrote", written);
    } else if (sl_at_access(rescue, F_OK) != 0 && errno == ENOENT) {
        /* The writer removes the rescue file only once the result is in
         * place: never "saved in" a file that is gone. */
        sl_log_warn("the writer of %s did not say what it wrote (%s) but removed %s, which it "
                    "does once the result is in place: look for %s or a free name beside it",
                    in->output, why, rescue, in->output);
    } else if (rescue_why[0]) {
        /* not beside the result: a directory of this node only, say so */
        char host[256] = "";
        gethostname(host, sizeof host - 1);
        sl_log_warn("could not write %s (%s; not beside it either: %s, so on host %s only); "
                    "timing data saved in %s%s: convert it with 'scope-likwid convert %s -o %s'",
                    in->output, why, rescue_why, host[0] ? host : "unknownhost", rescue, inside,
                    rescue, in->output);
    } else {
        sl_log_warn("could not write %s (%s); timing data saved in %s%s: convert it with "
                    "'scope-likwid convert %s -o %s'", in->output, why, rescue, inside, rescue,
                    in->output);
    }
    if (!written)
        sl_run_report("rescue", rescue);
    if (out) {
        out->written = written;
        out->rescue = written ? NULL : rescue;
        if (written)
            free(rescue);
        free(why);
        return 0;
    }
    free(written);
    free(rescue);
    free(why);
    return 0;
}

/* ==== cycle ==== */

/* Several Init..Close cycles in one process (a code that profiles two
 * phases): each cycle gets its own result file, "<output>.cycle<N>.h5"
 * (the first keeps the plain name), and the status text names the cycle,
 * so `scope-likwid show` says which it is. The region table is kept (its
 * entries and arenas are reused, nothing is freed) and its counters are
 * zeroed; the configuration of the first Init stays. Each cycle's marker
 * file is noted at its Init and read at its Close.
 *
 * Where LIKWID does not count (there are no counters to keep apart), the
 * cycles after the first go in batches: a library that wraps every call
 * of a routine in Init..Close costs a writer run per second, not per
 * call. A batch begins with a cycle's Close; its Close and those of the
 * next cycles (within 1 s of that one) run no writer, only rewrite the
 * batch file (below), and each next Init goes on in the same tables. The
 * batch is delivered, as one result named after its first cycle with the
 * status "Init..Close cycles A to B of process PID", by the first Close
 * 1 s or more after it began, or at the end of the process or an exec. */
static pthread_mutex_t cycle_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int closes_done;     /* cycles whose Close (or exit hook) has finished */
#define BATCH_NS 1000000000LL
static int batch_first;             /* the pending batch's first cycle; 0: none (cycle_lock) */
static int64_t batch_began_ns;      /* CLOCK_MONOTONIC at its first Close */

static int64_t monotonic_ns(void)
{
    struct timespec m;
    clock_gettime(CLOCK_MONOTONIC, &m);
    return (int64_t)m.tv_sec * 1000000000 + m.tv_nsec;
}

/* The pending batch's calls on disk, "<output>.batch.rescue" (a rescue
 * file: `scope-likwid convert` makes the result of it), rewritten whole
 * at each deferred Close (a new file renamed over the old one), removed
 * once the batch is delivered. A kill between cycles leaves it. */
static char *batch_file;            /* its path; NULL: none (cycle_lock) */

static void batch_file_drop(void)
{
    if (batch_file)
        sl_at_unlink(batch_file);
    free(batch_file);
    batch_file = NULL;
}

static void cycles_text(int first, const sl_state *g, sl_text *status);

/* A batch's status: its cycles, why nothing was counted, and `tail`. */
static void batch_text(int first, const sl_state *g, const char *tail, sl_text *status)
{
    cycles_text(first, g, status);
    not_counting(g, sl_cycle_api(), status);
    sl_text_add(status, "%s", tail);
}

/* The batch is over (under cycle_lock): its file goes when what it holds
 * was saved (saved), else it stays, the one copy of its calls. */
static void batch_end(int saved)
{
    batch_first = 0;
    if (saved)
        batch_file_drop();
    free(batch_file);
    batch_file = NULL;
}

/* Writes the tables as they are (the batch so far, first..g->cycle);
 * 0, or -errno. Under cycle_lock. */
static int batch_file_write(const sl_state *g, int first)
{
    sl_run run;
    if (sl_run_init(&run) != 0)
        return -ENOMEM;
    sl_text status = {0};
    batch_text(first, g, "written between cycles: the batch's Close had not come", &status);
    sl_deliver_in in;
    sl_deliver_in_from(g, &in);
    sl_likwid none;
    sl_likwid_init(&none);
    sl_run_record_fill(&run, &in, &none, status.s ? status.s : "");
    free(status.s);
    char *tmp = sl_name_fit(g->output, "", ".batch.tmp");
    char *path = batch_file ? batch_file : sl_name_fit(g->output, "", ".batch.rescue");
    int rc = tmp && path ? 0 : -ENOMEM;
    if (rc == 0) {
        sl_at_unlink(tmp);    /* one a kill left mid-write */
        xfsz_guard xg;
        xfsz_hold(&xg);
        rc = write_rescue_at(tmp, &run);
        xfsz_release(&xg);
    }
    if (rc == 0 && sl_at_rename(tmp, path, 0) != 0) {
        rc = -errno;
        sl_at_unlink(tmp);
    }
    sl_run_free(&run);
    free(tmp);
    if (rc == 0 && path != batch_file)
        sl_run_report("batch", path);   /* run delivers it should the process die */
    if (rc == 0)
        batch_file = path;
    else if (path != batch_file)
        free(path);
    return rc;
}

static int batch_defer(const sl_state *g, int counting)
{
    if (g->cycle < 2 || counting)
        return 0;
    pthread_mutex_lock(&cycle_lock);
    int64_t now = monotonic_ns();
    if (!batch_first) {
        batch_first = g->cycle;
        batch_began_ns = now;
    }
    /* Deferred only when the batch is safe on disk: in the journal of its
     * first cycle, which goes on through the batch (a kill leaves it to
     * recover, whose result names the batch's cycles), else in the batch
     * file; else written now. */
    int journaled = sl_journal_path()[0] != '\0';
    int defer = now - batch_began_ns < BATCH_NS &&
                (journaled || batch_file_write(g, batch_first) == 0);
    if (defer && journaled)
        sl_journal_note_cycles(batch_first, g->cycle);
    pthread_mutex_unlock(&cycle_lock);
    return defer;
}

/* The cycles a result holds: from the pending batch's first (0: none) to
 * the current one. */
static void cycles_text(int first, const sl_state *g, sl_text *status)
{
    if (first && first < g->cycle)
        sl_text_add(status, "Init..Close cycles %d to %d of process %lld", first, g->cycle,
                    (long long)g->pid);
    else if (g->cycle > 1)
        sl_text_add(status, "Init..Close cycle %d of process %lld", g->cycle, (long long)g->pid);
}

static void batch_status(const sl_state *g, sl_text *status)
{
    pthread_mutex_lock(&cycle_lock);
    int first = batch_first;
    pthread_mutex_unlock(&cycle_lock);
    cycles_text(first, g, status);
}

static void batch_delivered(int saved)
{
    pthread_mutex_lock(&cycle_lock);
    batch_end(saved);
    pthread_mutex_unlock(&cycle_lock);
}

static void batch_file_saved(void)
{
    pthread_mutex_lock(&cycle_lock);
    batch_file_drop();
    pthread_mutex_unlock(&cycle_lock);
}

/* The batch left pending by the last Close (the process is between
 * cycles), at the end of the process or an exec: delivered as at that
 * Close. Waits for a Close that is still delivering; the lock keeps a
 * next cycle from starting meanwhile. */
static void deliver_batch(const char *why)
{
    sl_close_await();
    pthread_mutex_lock(&cycle_lock);
    if (batch_first && getpid() == sl_g.pid && atomic_load(&sl_mode) == SL_MODE_CLOSED) {
        sl_deliver_in in;
        sl_deliver_in_from(&sl_g, &in);
        sl_likwid none;
        sl_likwid_init(&none);
        sl_text status = {0};
        batch_text(batch_first, &sl_g, why, &status);
        sl_signals_finishing(1);
        int saved = sl_deliver(&in, &none, status.s ? status.s : "") == 0;
        batch_end(saved);
        if (saved)
            survive_end();
        sl_signals_finishing(0);
        free(status.s);
    }
    pthread_mutex_unlock(&cycle_lock);
}

void sl_cycle_close_done(void)
{
    atomic_fetch_add(&closes_done, 1);
}

void sl_cycle_fork_child(void)
{
    pthread_mutex_init(&cycle_lock, NULL);
    atomic_store(&closes_done, 0);
    batch_end(0);       /* the parent's pending batch and its file are the parent's */
}

/* Every cycle reaches LIKWID as without the shim. LIKWID 5.2 to 5.4 free
 * their state at Close and clear likwid_init, so the next Init starts
 * afresh and counts (pylikwid's own tests run three cycles); LIKWID 5.5
 * keeps its init flag with the state destroyed, and its later cycles do
 * there what they do without the shim. */
const sl_real_api *sl_cycle_api(void)
{
    return sl_real();
}

int sl_cycle_begin(void)
{
    pthread_mutex_lock(&cycle_lock);
    int ok = 0;
    /* Only once the previous Close has finished (another thread may still
     * be writing it), and once per Init. */
    int ready = atomic_load(&sl_mode) == SL_MODE_CLOSED && atomic_load(&closes_done) == sl_g.cycle;
    if (ready && batch_first) {
        /* A batch is pending: the next cycle goes on in its tables (and
         * its journal, when the batch's first cycle had one). */
        sl_markerfile_note_init();
        sl_g.cycle++;
        sl_journal_note_cycles(batch_first, sl_g.cycle);
        sl_close_rearm();
        ok = 1;
    } else if (ready) {
        char *out = sl_output_derived(sl_g.first_output, "cycle", sl_g.cycle + 1);
        if (!out) {
            sl_log_warn("out of memory at likwid_markerInit (cycle %d): not timed",
                        sl_g.cycle + 1);
        } else {
            struct timespec m, r;
            clock_gettime(CLOCK_MONOTONIC, &m);
            clock_gettime(CLOCK_REALTIME, &r);
            sl_g.origin_unix_ns = ((int64_t)r.tv_sec - m.tv_sec) * 1000000000 +
                                  (r.tv_nsec - m.tv_nsec);
            sl_markerfile_note_init();
            if (sl_g.output != sl_g.first_output)
                free(sl_g.output);
            sl_g.output = out;
            sl_g.cycle++;
            sl_rt_forget();
            sl_close_rearm();
            ok = 1;
            sl_log_debug("cycle %d: output %s", sl_g.cycle, sl_g.output);
            /* A kill during this cycle loses nothing either: its journal. */
            sl_survive_renew(sl_g.output, sl_g.pid, sl_g.cycle, sl_g.origin_unix_ns,
                             sl_g.cfg.writer, sl_g.cfg.timeout_s);
            sl_run_report("init", sl_g.output);
            sl_run_report("journal", sl_journal_path());
        }
    }
    /* LIKWID's Init begins in its first group: so does the count of
     * NextGroup calls that tells which one is active. */
    if (ok)
        atomic_store(&sl_next_group_calls, 0);
    pthread_mutex_unlock(&cycle_lock);
    return ok;
}

/* ==== exit hook ==== */

/* The end of a process that called likwid_markerInit but not Close: the
 * timing is delivered without counters (LIKWID is not asked: its own exit
 * work may already have run).
 *
 * Two hooks. The early one is an atexit handler registered at Init: the exit function
 * runs it before the atexit handlers registered before Init and before the
 * destructors of C++ objects constructed before Init, so the result is
 * written (the writer waited for, as under srun it must be) while the
 * application's globals are alive and its other threads may still use
 * them. It does not finish the cycle: a likwid_markerClose that comes later
 * from such a handler or destructor still reaches LIKWID, and its result
 * replaces the early one (sl_exit_superseded). The late hook, the library
 * destructor, runs after all of them and only prints the early result's
 * line; it delivers itself only when the early hook never ran. So the time
 * between the application's last destructor and the end of the process is
 * what it is without the shim. Regions timed after the early hook (in a
 * static destructor, or by threads still running) are not in that result. */
static pthread_mutex_t early_lock = PTHREAD_MUTEX_INITIALIZER;
static int early_done;          /* the early hook delivered: early holds what it left */
static sl_delivered early;
static int exec_had_journal;

/* Delivers the timing with the exit path's status (the reason in `why`,
 * NULL: exit); 1 when something was saved (then the journal goes). out:
 * see sl_deliver_keep (NULL: print). */
static int deliver_at_exit(sl_delivered *out, const char *why)
{
    sl_deliver_in in;
    sl_deliver_in_from(&sl_g, &in);
    sl_likwid none;
    sl_likwid_init(&none);
    sl_text status = {0};
    batch_status(&sl_g, &status);
    if (why)
        sl_text_add(&status, "%s", why);
    else
        sl_text_add(&status, "%s", atomic_load(&sl_in_real_init)
                                       ? "likwid_markerInit exited the process (LIKWID could "
                                         "not start counting); no counter data"
                                       : "application exited without likwid_markerClose; no "
                                         "counter data");
    int saved = (out ? sl_deliver_keep(&in, &none, status.s ? status.s : "", out)
                     : sl_deliver(&in, &none, status.s ? status.s : "")) == 0;
    free(status.s);
    if (saved) {
        survive_end();      /* else the journal is the last copy: it stays */
        batch_file_saved();     /* the result holds the pending batch too */
    }
    sl_fork_deliver_parent();
    return saved;
}

#define BATCH_AT_EXIT "delivered at the end of the process"

void sl_close_at_exit(void)
{
    if (getpid() != sl_g.pid)
        return;
    if (atomic_load(&sl_mode) != SL_MODE_ACTIVE || !sl_close_claim()) {
        deliver_batch(BATCH_AT_EXIT);
        return;
    }
    sl_close_delivering(1);
    deliver_at_exit(NULL, NULL);
    sl_cycle_close_done();
    sl_close_delivering(0);
}

static void early_deliver(void);

/* The exit function may be called from a crash handler on a small alternate stack. */
static void early_hook(void)
{
    with_room(early_deliver);
}

static void early_deliver(void)
{
    if (getpid() != sl_g.pid)
        return;
    if (atomic_load(&sl_mode) != SL_MODE_ACTIVE) {
        /* main returned while another thread closes, or between cycles */
        deliver_batch(BATCH_AT_EXIT);
        return;
    }
    pthread_mutex_lock(&early_lock);
    if (!early_done && atomic_load(&sl_mode) == SL_MODE_ACTIVE) {
        early = (sl_delivered){0};
        sl_signals_finishing(1);
        deliver_at_exit(&early, NULL);
        sl_signals_finishing(0);
        early_done = 1;
    }
    pthread_mutex_unlock(&early_lock);
}

void sl_exit_hook_arm(void)
{
    static int armed;
    if (!armed && atexit(early_hook) == 0)
        armed = 1;
}

void sl_exit_superseded(void)
{
    pthread_mutex_lock(&early_lock);
    if (early_done) {
        /* Our own file, written moments ago in this exit: Close's result
         * takes its name. */
        sl_at_unlink(early.written ? early.written : early.rescue);
        free(early.written);
        free(early.rescue);
        early = (sl_delivered){0};
        early_done = 0;
    }
    pthread_mutex_unlock(&early_lock);
}

/* exec: the image before it is a run of its own (entry.c). Delivered
 * as the early hook does, without finishing the cycle: when the exec fails
 * the program goes on, and the result written for it is removed again, so
 * that the one at its Close or exit holds every call once. */
static int exec_pending;

void sl_exec_begin(const char *what)
{
    if (getpid() != sl_g.pid)
        return;
    if (atomic_load(&sl_mode) != SL_MODE_ACTIVE) {
        deliver_batch("delivered at exec");
        return;
    }
    pthread_mutex_lock(&early_lock);
    if (!early_done && atomic_load(&sl_mode) == SL_MODE_ACTIVE) {
        sl_text why = {0};
        sl_text_add(&why, "the program called exec (%s) before likwid_markerClose; no counter "
                          "data", what ? what : "?");
        early = (sl_delivered){0};
        exec_had_journal = sl_journal_path()[0] != '\0';
        sl_signals_finishing(1);
        deliver_at_exit(&early, why.s);
        sl_signals_finishing(0);
        free(why.s);
        early_done = exec_pending = 1;
        if (early.written)
            sl_log_info("wrote %s", early.written);     /* no hook runs after the exec */
    }
    pthread_mutex_unlock(&early_lock);
}

void sl_exec_failed(const char *what)
{
    int saved = errno;
    /* The pid first, and no lock for another process: the shim's own
     * helpers exec from a clone child that shares our memory, perhaps
     * while this process holds the lock (delivering). */
    if (getpid() != sl_g.pid)
        return;
    pthread_mutex_lock(&early_lock);
    if (exec_pending) {
        exec_pending = 0;
        const char *left = early.written ? early.written : early.rescue;
        if (left)
            sl_log_warn("exec of %s failed (%s): %s removed, the timing goes on%s",
                        what ? what : "?", strerror(saved), left,
                        exec_had_journal ? " without a journal" : "");
        pthread_mutex_unlock(&early_lock);
        sl_exit_superseded();
        errno = saved;
        return;
    }
    pthread_mutex_unlock(&early_lock);
    errno = saved;
}

/* After the application's atexit handlers and static destructors: they are
 * registered after the shim was loaded, or belong to objects finalised
 * before it (the shim depends on libc only, so it is finalised last). */
__attribute__((destructor)) static void exit_hook(void)
{
    pthread_mutex_lock(&early_lock);
    int done = early_done && getpid() == sl_g.pid;
    if (done && sl_close_claim()) {
        if (early.written)
            sl_log_info("wrote %s", early.written);
        sl_cycle_close_done();
    }
    pthread_mutex_unlock(&early_lock);
    if (!done)
        sl_close_at_exit();
}
