/* Delivery: the run record, the rescue file, the writer helper; the one
 * "wrote" line or one warning naming what is left. */
#include "end.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rescue file, then the writer helper (end.h). */
static const char no_file[] = "";

/* Whether last (the writer's last line) names a result it wrote for this
 * process (spawn/proof.c): NULL when it does; no_file when it names no file;
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

/* The writer started at Close (sl_early_writer) given the rescue file and
 * the output. One that ended before it took them (it says "taken" first)
 * is started again as at any Close, with one warning: it had nothing yet.
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
     * (spawn/proof.c): whoever else answers cannot make us drop the rescue
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

/* The writer started at the start of a Close whose collector runs: its
 * start (HDF5 and its libraries) goes on while the collector loads LIKWID,
 * on the other core; it waits for the rescue file's name (run_writer).
 * Not through run's helper host, whose helpers the application's
 * getrusage never counts: there the writer starts as before. 1: started. */
int sl_early_writer(const sl_state *g, int counting, sl_spawn_job *job)
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

/* The writer's inputs from g. */
void sl_deliver_in_from(const sl_state *g, sl_deliver_in *in)
{
    *in = (sl_deliver_in){.output = g->output, .pid = g->pid, .parent_pid = g->parent_pid,
                          .mpi = g->mpi, .rank = g->rank,
                          .origin_unix_ns = g->origin_unix_ns, .writer = g->cfg.writer,
                          .timeout_s = g->cfg.timeout_s};
}

int sl_deliver(const sl_deliver_in *in, sl_likwid *lw, const char *status)
{
    return sl_deliver_keep(in, lw, status, NULL);
}

/* The run record filled, the status telling of calls that kept no
 * per-call record (counted and timed all the same). -1: no memory. */
static int record_with_dropped(sl_run *run, const sl_deliver_in *in, sl_likwid *lw,
                               const char *status)
{
    if (sl_run_init(run) != 0) {
        sl_log_warn("could not write %s (out of memory): results lost", in->output);
        return -1;
    }
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
    sl_run_record_fill(run, in, lw, status);
    sl_log_debug("likwid_status: %s", status);
    free(full);
    return 0;
}

/* No rescue file: the journal (it stays when nothing else was saved)
 * still holds the timing of this cycle: say so, and how to get it. After
 * a chroot the names are those outside it, where the user is. */
static void say_nothing_saved(const sl_deliver_in *in, char *rescue_why, size_t len)
{
    const char *j = sl_journal_path();
    sl_journal_mark_unsaved();
    if (rescue_why)
        made_left(in, rescue_why, len);
    if (j[0])
        sl_log_warn("could not write %s: could not save the rescue file (%s%s); the timing "
                    "data stays in the journal %s: recover it with 'scope-likwid recover %s'",
                    in->output, rescue_why ? rescue_why : "out of memory",
                    sl_anchor_lost() ? "; the process changed its root directory since "
                                       "likwid_markerInit" : "", j, j);
    else
        sl_log_warn("could not write %s: could not save the rescue file (%s): results lost",
                    in->output, rescue_why ? rescue_why : "out of memory");
}

/* The writer failed: where the timing is and how to convert it. */
static void say_writer_failed(const sl_deliver_in *in, const char *rescue, const char *why,
                              const char *rescue_why)
{
    /* a rescue file made by name in a new root lies inside it */
    const char *inside = sl_anchor_lost() ? " (inside the root directory the process changed "
                                            "to since likwid_markerInit)" : "";
    if (sl_at_access(rescue, F_OK) != 0 && errno == ENOENT) {
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
}

int sl_deliver_keep(const sl_deliver_in *in, sl_likwid *lw, const char *status,
                    sl_delivered *out)
{
    sl_run run;
    if (record_with_dropped(&run, in, lw, status) != 0)
        return -1;
    /* The reasons on the heap: Close may run on a thread with a small stack. */
    enum { WHY = 1024, RESCUE_WHY = PATH_MAX + 256 };
    char *why = calloc(1, WHY + RESCUE_WHY), *rescue_why = why ? why + WHY : NULL;
    char *rescue = why ? sl_rescue_write(&run, in->output, in->pid, rescue_why, RESCUE_WHY) : NULL;
    sl_run_free(&run);
    if (!rescue) {
        say_nothing_saved(in, rescue_why, RESCUE_WHY);
        free(why);
        return -1;
    }
    sl_journal_mark_delivering(rescue);
    char *written = run_writer(in, rescue, why, WHY);
    if (!written)
        made_left(in, why, WHY);
    if (written) {
        /* The writer removed the rescue file once the result was in place;
         * the name is not ours any more: another process of the same output
         * may already have made its own rescue file under it. */
        sl_anchor_result_release();
        if (!out)
            sl_log_info("wrote %s", written);
        sl_run_report("wrote", written);
    } else {
        say_writer_failed(in, rescue, why, rescue_why);
        sl_run_report("rescue", rescue);
    }
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
