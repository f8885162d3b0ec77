/* Init..Close cycles in one process, and batches of cycles in which
 * LIKWID does not count. */
#include "end.h"
#include "name_fit.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

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

static void cycles_text(int first, const sl_state *g, sl_why *status);

/* A batch's status: its cycles, why nothing was counted, and `tail`. */
static void batch_text(int first, const sl_state *g, const char *tail, sl_why *status)
{
    cycles_text(first, g, status);
    sl_not_counting(g, sl_cycle_api(), status);
    sl_status_add(status, "%s", tail);
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
    sl_why status = {0};
    batch_text(first, g, "written between cycles: the batch's Close had not come", &status);
    sl_deliver_in in;
    sl_deliver_in_from(g, &in);
    sl_likwid none;
    sl_likwid_init(&none);
    sl_run_record_fill(&run, &in, &none, sl_why_text(&status));
    sl_why_free(&status);
    char *tmp = sl_name_fit(g->output, "", ".batch.tmp");
    char *path = batch_file ? batch_file : sl_name_fit(g->output, "", ".batch.rescue");
    int rc = tmp && path ? 0 : -ENOMEM;
    if (rc == 0) {
        sl_at_unlink(tmp);    /* one a kill left mid-write */
        rc = sl_rescue_write_held(tmp, &run);
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

int sl_batch_defer(const sl_state *g, int counting)
{
    if (g->cycle < 2 || counting)
        return 0;
    pthread_mutex_lock(&cycle_lock);
    int64_t now = sl_clock_ns(CLOCK_MONOTONIC);
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
static void cycles_text(int first, const sl_state *g, sl_why *status)
{
    if (first && first < g->cycle)
        sl_status_add(status, "Init..Close cycles %d to %d of process %lld", first, g->cycle,
                    (long long)g->pid);
    else if (g->cycle > 1)
        sl_status_add(status, "Init..Close cycle %d of process %lld", g->cycle, (long long)g->pid);
}

void sl_batch_status(const sl_state *g, sl_why *status)
{
    pthread_mutex_lock(&cycle_lock);
    int first = batch_first;
    pthread_mutex_unlock(&cycle_lock);
    cycles_text(first, g, status);
}

void sl_batch_delivered(int saved)
{
    pthread_mutex_lock(&cycle_lock);
    batch_end(saved);
    pthread_mutex_unlock(&cycle_lock);
}

void sl_batch_file_saved(void)
{
    pthread_mutex_lock(&cycle_lock);
    batch_file_drop();
    pthread_mutex_unlock(&cycle_lock);
}

/* The pending batch's own ending (end/ending.c), under cycle_lock: 1 when
 * there is one to deliver (then *status holds its text, first..this cycle,
 * ending in why); the lock is held until sl_batch_unlock (and keeps a next
 * cycle from starting meanwhile). sl_batch_end_pending: it went (saved) or
 * its file stays. */
int sl_batch_lock_pending(const char *why, sl_why *status)
{
    pthread_mutex_lock(&cycle_lock);
    if (!(batch_first && getpid() == sl_g.pid && atomic_load(&sl_mode) == SL_MODE_CLOSED))
        return 0;
    batch_text(batch_first, &sl_g, why, status);
    return 1;
}

void sl_batch_end_pending(int saved)
{
    batch_end(saved);
}

void sl_batch_unlock(void)
{
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
            sl_g.origin_unix_ns = sl_origin_unix_ns();
            sl_markerfile_note_init();
            sl_name_result_cycle(out);
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
