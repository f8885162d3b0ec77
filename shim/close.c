/* likwid_markerClose as the shim does it (and the exit path without Close):
 * snapshot, forward Close once, collect LIKWID's results (full API in a
 * helper process, else the marker file, else the snapshots), then hand the
 * whole run to the writer helper through a rescue file. Nothing here may
 * hurt the application: every failure ends in a status text or a warning. */
#include "shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "fileio.h"
#include "log.h"
#include "markerfile.h"
#include "real.h"
#include "region_table.h"
#include "run.h"
#include "run_meta.h"
#include "spawn_helper.h"
#include "wire.h"

#ifndef SL_HELPER_REL_INSTALLED
#define SL_HELPER_REL_INSTALLED "../libexec"
#endif

#define SNAPSHOT_EVENTS 256

extern char **environ;

static _Atomic int finishing;   /* Close or the exit path: whichever comes first */

/* ---- status text: "a; b; c" ---- */

typedef struct text {
    char *s;
} text;

static void text_add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_add(text *t, const char *fmt, ...)
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

/* ---- where the helpers are ---- */

static char *self_path(void)
{
    Dl_info info;
    if (!dladdr((void *)(uintptr_t)&sl_close_run, &info) || !info.dli_fname ||
        !info.dli_fname[0])
        return NULL;
    return realpath(info.dli_fname, NULL);
}

/* The helper's path, or NULL with *problem saying what is wrong ("not found:
 * PATH" or "not executable: PATH (reason)"). Never PATH, never the cwd. */
static char *check_exec(const char *path, char **problem)
{
    if (access(path, X_OK) == 0)
        return strdup(path);
    char buf[PATH_MAX + 128];
    if (errno == ENOENT || errno == ENOTDIR)
        snprintf(buf, sizeof buf, "not found: %s", path);
    else
        snprintf(buf, sizeof buf, "not executable: %s (%s)", path, strerror(errno));
    *problem = strdup(buf);
    return NULL;
}

static char *helper_path(const char *override, const char *name, char **problem)
{
    *problem = NULL;
    if (override)
        return check_exec(override, problem);
    char *self = self_path();
    if (!self) {
        *problem = strdup("not found: the shim's own path is unknown");
        return NULL;
    }
    char *slash = strrchr(self, '/');
    *slash = '\0';
    const char *rel[] = {SL_HELPER_REL_INSTALLED, "../helpers"};
    char cand[2][PATH_MAX];
    for (int i = 0; i < 2; i++) {
        snprintf(cand[i], sizeof cand[i], "%s/%s/%s", self, rel[i], name);
        if (access(cand[i], X_OK) == 0) {
            free(self);
            return strdup(cand[i]);
        }
    }
    free(self);
    /* Neither there: report the installed location. */
    return check_exec(cand[0], problem);
}

static int run_helper(const char *const argv[], double timeout_s, sl_spawn_result *res)
{
    char *self = self_path();
    char **env = sl_helper_env(environ, self);
    free(self);
    if (!env) {
        memset(res, 0, sizeof *res);
        res->outcome = SL_SPAWN_FAILED;
        res->error = ENOMEM;
        return -ENOMEM;
    }
    int rc = sl_spawn_run(argv, env, timeout_s, 0, res);
    sl_env_free(env);
    return rc;
}

/* ---- counter sources ---- */

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

static void take_snapshots(const sl_real_api *r, sl_likwid *snap)
{
    sl_rt_thread *t = sl_rt_self();
    if (!t || !r->get)
        return;
    int ng = sl_g.ngroups > 0 ? sl_g.ngroups : 1;
    snap_ctx c = {r, snap, atomic_load(&sl_next_group_calls) % ng};
    sl_rt_each_started(t, snap_one, &c);
    if (snap->nregions)
        snap->source = SL_SOURCE_MARKER_API;
}

/* The marker file must exist and be from this run (not a stale one). */
static int marker_file_ok(const char *path, text *status)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        text_add(status, "LIKWID wrote no marker file (%s: %s)", path, strerror(errno));
        return 0;
    }
    if (!S_ISREG(st.st_mode)) {
        text_add(status, "LIKWID_FILEPATH %s is not a regular file", path);
        return 0;
    }
    if (st.st_mtime + 1 < sl_g.init_unix_s) {
        text_add(status, "marker file %s is older than this run: LIKWID did not write it", path);
        return 0;
    }
    return 1;
}

static int full_api(const char *markerfile, sl_likwid *lw, text *status)
{
    char *missing;
    char *collector = helper_path(sl_g.cfg.collector, "scope-likwid-collect", &missing);
    if (!collector) {
        text_add(status, "full_api failed: collector %s", missing ? missing : "not found");
        free(missing);
        return 0;
    }
    const char *argv[] = {collector, markerfile, NULL};
    sl_spawn_result res;
    sl_log_debug("running %s %s", collector, markerfile);
    run_helper(argv, sl_g.cfg.timeout_s, &res);
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
        why = sl_spawn_describe(&res, sl_g.cfg.timeout_s);
    }
    if (ok) {
        sl_diag d;
        sl_diag_init(&d);
        int rc = sl_wire_read_likwid(res.out, res.out_len, "collector output", lw, &d);
        if (rc == 0) {
            lw->source = SL_SOURCE_FULL_API;
            sl_log_debug("full_api: %zu regions", lw->nregions);
        } else {
            ok = 0;
            char *last = sl_last_line(res.err, res.err_len);
            text_add(status, "full_api failed: garbage output: %s%s%s%s",
                     d.kept ? d.lines[0] : strerror(-rc), last && *last ? " (stderr: " : "",
                     last && *last ? last : "", last && *last ? ")" : "");
            free(last);
            sl_likwid_free(lw);
            sl_likwid_init(lw);
        }
        sl_diag_free(&d);
    } else {
        text_add(status, "full_api failed: collector %s", why ? why : "failed");
    }
    free(why);
    free(collector);
    sl_spawn_result_free(&res);
    return ok;
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

static int marker_file(const char *path, sl_likwid *lw, text *status)
{
    sl_diag d;
    sl_diag_init(&d);
    sl_markerfile_info info = {0};
    int rc = sl_markerfile_read(path, 0, lw, &info, &d);
    if (rc != 0) {
        text_add(status, "marker_file failed: %s", d.kept ? d.lines[0] : strerror(-rc));
        sl_likwid_free(lw);
        sl_likwid_init(lw);
        sl_diag_free(&d);
        return 0;
    }
    size_t empty = drop_empty_regions(lw);
    if (lw->nregions == 0) {
        int defect = info.skipped_lines && d.kept;
        text_add(status, "marker_file failed: no region has a value line%s%s%s",
                 defect ? " (first defect: " : "", defect ? d.lines[0] : "", defect ? ")" : "");
        sl_likwid_free(lw);
        sl_likwid_init(lw);
        sl_diag_free(&d);
        return 0;
    }
    if (empty)
        text_add(status, "marker_file: %zu regions without any value line left out", empty);
    lw->source = SL_SOURCE_MARKER_FILE;
    if (info.skipped_lines)
        text_add(status, "used marker_file (%zu defective lines skipped; first: %s)",
                 info.skipped_lines, d.kept ? d.lines[0] : "?");
    else
        text_add(status, "used marker_file");
    sl_diag_free(&d);
    return 1;
}

/* ---- the run and its file ---- */

static char *read_text(const char *path, int nul_to_blank)
{
    char *buf;
    size_t len;
    if (sl_read_file(path, 1 << 20, &buf, &len) != 0)
        return strdup("");
    while (len > 0 && buf[len - 1] == '\0')
        len--;
    buf[len] = '\0';
    if (nul_to_blank)
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
    return buf;
}

static void fill_run(sl_run *run, sl_likwid *lw, const char *status)
{
    run->rank = sl_g.rank;
    run->mpi_rank = sl_g.mpi ? sl_g.rank : -1;
    run->pid = sl_g.pid;
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) == 0)
        sl_set_string(&run->hostname, host);
    char *exe = realpath("/proc/self/exe", NULL);
    if (exe)
        sl_set_string(&run->executable, exe);
    free(exe);
    char *cmd = read_text("/proc/self/cmdline", 1);
    if (cmd)
        sl_set_string(&run->command_line, cmd);
    free(cmd);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || strncmp(*e, "LIKWID_", 7) != 0)
            continue;
        char name[256];
        size_t n = (size_t)(eq - *e);
        if (n >= sizeof name)
            continue;
        memcpy(name, *e, n);
        name[n] = '\0';
        sl_run_add_env(run, name, eq + 1);
    }
    sl_set_string(&run->timing.clock, "CLOCK_MONOTONIC");
    run->timing.origin_unix_ns = sl_g.origin_unix_ns;
    if (sl_rt_collect(&run->timing) != 0)
        sl_log_warn("out of memory while collecting the region timing: some regions are missing");
    sl_run_meta_fill(run);
    /* The counters move into the run. */
    sl_likwid_free(&run->likwid);
    run->likwid = *lw;
    sl_likwid_init(lw);
    sl_set_string(&run->likwid_status, status);
}

/* Creates a new file exclusively; "" dir means path is complete. */
static int create_excl(const char *path)
{
    return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

static int write_rescue_at(const char *path, const sl_run *run)
{
    int fd = create_excl(path);
    if (fd < 0)
        return -errno;
    int rc = sl_wire_write_run(fd, run);
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc != 0)
        unlink(path);
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

static char *write_rescue_guarded(const sl_run *run, char *why, size_t why_len);

/* "<output>.rescue", else in $TMPDIR or /tmp. Returns the path or NULL. */
static char *write_rescue(const sl_run *run, char *why, size_t why_len)
{
    xfsz_guard g;
    xfsz_hold(&g);
    char *path = write_rescue_guarded(run, why, why_len);
    xfsz_release(&g);
    return path;
}

static char *write_rescue_guarded(const sl_run *run, char *why, size_t why_len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s.rescue", sl_g.output);
    int rc = write_rescue_at(path, run);
    if (rc == 0)
        return strdup(path);
    snprintf(why, why_len, "%s: %s", path, strerror(-rc));
    const char *base = strrchr(sl_g.output, '/');
    base = base ? base + 1 : sl_g.output;
    const char *tmpdir = getenv("TMPDIR");
    const char *dirs[] = {tmpdir && tmpdir[0] == '/' ? tmpdir : NULL, "/tmp"};
    for (int i = 0; i < 2; i++) {
        if (!dirs[i])
            continue;
        for (int k = 0; k < 100; k++) {
            snprintf(path, sizeof path, "%s/%s.%lld.%d.rescue", dirs[i], base,
                     (long long)sl_g.pid, k);
            rc = write_rescue_at(path, run);
            if (rc == 0)
                return strdup(path);
            if (rc != -EEXIST)
                break;
        }
    }
    return NULL;
}

/* Runs the writer; returns the written path (newly allocated) or NULL with
 * the reason in why. */
static char *run_writer(const char *rescue, char *why, size_t why_len)
{
    char *missing;
    char *writer = helper_path(sl_g.cfg.writer, "scope-likwid-write", &missing);
    if (!writer) {
        snprintf(why, why_len, "writer %s", missing ? missing : "not found");
        free(missing);
        return NULL;
    }
    const char *argv[] = {writer, rescue, sl_g.output, NULL};
    sl_spawn_result res;
    /* The writer is our own code working on data already saved: its time
     * grows with the data (HDF5's per-object cost), not with LIKWID's
     * hazards. It gets the timeout plus one second per MiB of rescue file,
     * so a large run is written, not left as a rescue file. */
    struct stat rst;
    double timeout_s = sl_g.cfg.timeout_s;
    if (stat(rescue, &rst) == 0)
        timeout_s += (double)rst.st_size / (1024.0 * 1024.0);
    sl_log_debug("running %s %s %s (timeout %g s)", writer, rescue, sl_g.output, timeout_s);
    run_helper(argv, timeout_s, &res);
    sl_log_debug("writer: outcome %d, status %d, signal %d", (int)res.outcome, res.exit_code,
                 res.signal);
    char *written = NULL;
    if (res.outcome == SL_SPAWN_EXITED ? res.exit_code == 0
                                       : res.outcome == SL_SPAWN_NO_STATUS) {
        char *last = sl_last_line(res.out, res.out_len);
        struct stat st;
        if (last && *last && stat(last, &st) == 0 && S_ISREG(st.st_mode))
            written = last;
        else {
            char *err = sl_last_line(res.err, res.err_len);
            snprintf(why, why_len, "the writer named no written file%s%s",
                     err && *err ? ": " : "", err && *err ? err : "");
            free(err);
            free(last);
        }
    } else {
        char *d = sl_spawn_describe(&res, timeout_s);
        snprintf(why, why_len, "writer %s", d ? d : "failed");
        free(d);
    }
    sl_spawn_result_free(&res);
    free(writer);
    return written;
}

static void finish(sl_likwid *lw, const char *status)
{
    sl_run run;
    if (sl_run_init(&run) != 0) {
        sl_log_warn("could not write %s (out of memory): results lost", sl_g.output);
        return;
    }
    fill_run(&run, lw, status);
    sl_log_debug("likwid_status: %s", status);
    char why[1024] = "", rescue_why[PATH_MAX + 256] = "";
    char *rescue = write_rescue(&run, rescue_why, sizeof rescue_why);
    sl_run_free(&run);
    if (!rescue) {
        sl_log_warn("could not write %s: could not save the rescue file (%s): results lost",
                    sl_g.output, rescue_why);
        return;
    }
    char *written = run_writer(rescue, why, sizeof why);
    if (written) {
        unlink(rescue);
        sl_log_info("wrote %s", written);
    } else {
        sl_log_warn("could not write %s (%s); timing data saved in %s: convert it with "
                    "'scope-likwid convert %s -o %s'", sl_g.output, why, rescue, rescue,
                    sl_g.output);
    }
    free(written);
    free(rescue);
}

void sl_close_run(void)
{
    if (atomic_exchange(&finishing, 1))
        return;     /* a second Close, from any thread: answered here */
    atomic_store(&sl_mode, SL_MODE_CLOSED);
    const sl_real_api *r = sl_real();
    const char *markerpath = getenv("LIKWID_FILEPATH");
    int counting = sl_g.counting && r->close && markerpath;

    sl_likwid snap, lw;
    sl_likwid_init(&snap);
    sl_likwid_init(&lw);
    if (counting && (sl_g.cfg.sources & SL_SRC_MARKER_API))
        take_snapshots(r, &snap);
    if (r->close)
        r->close();

    text status = {0};
    if (!r->close) {
        text_add(&status, "LIKWID not counting (the application is not linked with LIKWID); "
                          "timing only");
    } else if (!counting) {
        text_add(&status, "LIKWID not counting (%s); timing only",
                 sl_g.not_counting ? sl_g.not_counting : "LIKWID_FILEPATH not set");
    } else {
        int have = 0;
        if (sl_g.cfg.sources & (SL_SRC_FULL_API | SL_SRC_MARKER_FILE) &&
            marker_file_ok(markerpath, &status)) {
            if (sl_g.cfg.sources & SL_SRC_FULL_API) {
                have = full_api(markerpath, &lw, &status);
                if (have)
                    text_add(&status, "used full_api");
            }
            if (!have && (sl_g.cfg.sources & SL_SRC_MARKER_FILE))
                have = marker_file(markerpath, &lw, &status);
        }
        if (!have && (sl_g.cfg.sources & SL_SRC_MARKER_API)) {
            if (snap.nregions) {
                sl_likwid_free(&lw);
                lw = snap;
                sl_likwid_init(&snap);
                text_add(&status, "used marker_api");
                have = 1;
            } else {
                text_add(&status, "marker_api: no region was measured by the closing thread");
            }
        }
        if (!have)
            text_add(&status, "no counter data");
    }
    finish(&lw, status.s ? status.s : "");
    free(status.s);
    sl_likwid_free(&lw);
    sl_likwid_free(&snap);
}

void sl_close_at_exit(void)
{
    if (atomic_load(&sl_mode) != SL_MODE_ACTIVE || getpid() != sl_g.pid)
        return;
    if (atomic_exchange(&finishing, 1))
        return;
    atomic_store(&sl_mode, SL_MODE_CLOSED);
    sl_likwid none;
    sl_likwid_init(&none);
    finish(&none, atomic_load(&sl_in_real_init)
                      ? "likwid_markerInit exited the process (LIKWID could not start "
                        "counting); no counter data"
                      : "application exited without likwid_markerClose; no counter data");
}
