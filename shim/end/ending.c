/* Every way a cycle ends from the process's own memory (Close, the exit
 * hooks, exec, a pending batch) through one shared tail. */
#include "end.h"
#include "likwid_version.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* After delivery the journal goes. A process that dropped its privileges
 * or changed its root since Init (a service: root, then nobody) may not
 * remove it any more: one line names it (its result is delivered, so
 * recover only removes it). */
void sl_survive_end_saved(void)
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

/* The one ending of a cycle delivered from the process's own memory
 * (Close, the exit hooks, exec, a pending batch), in this order: finishing
 * on; for Close the early result superseded and LIKWID's counters (or the
 * cycle deferred into the batch); the status; delivery; the journal's end
 * once something is saved; the batch's step; the forked children's and
 * the parent's journals; the cycle counted done; finishing off. The signal
 * handler's writer shares only the claim (signals/handler.c). */
static const char *exit_text(void)
{
    return atomic_load(&sl_in_real_init)
               ? "likwid_markerInit exited the process (LIKWID could not start counting); "
                 "no counter data"
               : "application exited without likwid_markerClose; no counter data";
}

int sl_end_cycle(const sl_ending *e)
{
    const sl_state *g = &sl_g;
    sl_why own = {0}, *status = e->held_batch ? e->held_batch : &own;
    if (e->delivering)
        sl_close_delivering(1);
    else
        sl_signals_finishing(1);
    sl_likwid lw;
    sl_likwid_init(&lw);
    sl_deliver_in in;
    sl_deliver_in_from(g, &in);
    char version[32];
    int saved = 0;
    sl_spawn_job early_job;         /* Close: the writer started with the collector */
    int have_early = 0;
    if (e->close) {
        sl_exit_superseded();   /* a Close from an exit handler replaces the exit hook's result */
        int ng = g->ngroups > 0 ? g->ngroups : 1;
        int64_t group = atomic_load(&sl_next_group_calls) % ng;
        /* LIKWID 5.5 keeps every thread's regions in group 0 whatever
         * NextGroup switched to: its GetRegion answers from those */
        sl_real_likwid_version(sl_cycle_api(), version, sizeof version);
        int by_group = sl_likwid_minor(version) < 5;
        if (!by_group)
            group = 0;
        const sl_real_api *r = sl_cycle_api();
        const char *markerpath = sl_env(SL_ENV_LIKWID_FILEPATH);
        if (sl_batch_defer(g, g->counting && r->close && markerpath)) {
            /* Nothing to count, and this cycle's calls wait in the tables for
             * the batch's delivery (end/cycle.c), and on disk in the batch
             * file meanwhile. LIKWID closes as without the shim. */
            if (r->close)
                r->close();
            goto tail;
        }
        have_early = sl_early_writer(g, g->counting && r->close && markerpath, &early_job);
        sl_batch_status(g, status);
        sl_counters_at_close(g, r, markerpath, group, by_group, &lw, status);
        if (strcmp(version, "unknown") != 0)
            in.likwid_version = version;
        in.early = have_early ? &early_job : NULL;
    } else if (!e->held_batch) {
        sl_batch_status(g, status);
        sl_status_add(status, "%s", e->why ? e->why : exit_text());
    }
    saved = (e->keep ? sl_deliver_keep(&in, &lw, sl_why_text(status), e->keep)
                     : sl_deliver(&in, &lw, sl_why_text(status))) == 0;
    if (have_early)
        sl_spawn_dismiss(&early_job);   /* not needed: nothing was handed to it */
    if (e->held_batch)
        sl_batch_end_pending(saved);
    if (saved)
        sl_survive_end_saved();     /* else the journal is the last copy: it stays */
    if (e->close)
        sl_batch_delivered(saved);
    else if (e->keeps_batch && saved)
        sl_batch_file_saved();      /* the result holds the pending batch too */
tail:
    sl_why_free(&own);
    sl_likwid_free(&lw);
    if (e->fork_parent)
        sl_fork_deliver_parent();
    if (e->count_done)
        sl_cycle_close_done();
    if (e->delivering)
        sl_close_delivering(0);
    else
        sl_signals_finishing(0);
    return saved;
}

/* The batch left pending by the last Close (the process is between
 * cycles), at the end of the process or an exec: delivered as at that
 * Close. Waits for a Close that is still delivering; the cycle's lock
 * keeps a next cycle from starting meanwhile. */
static void deliver_batch(const char *why)
{
    sl_close_await();
    sl_why status = {0};
    if (sl_batch_lock_pending(why, &status))
        sl_end_cycle(&(sl_ending){.held_batch = &status});
    sl_batch_unlock();
    sl_why_free(&status);
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
    sl_end_cycle(&(sl_ending){.delivering = 1, .keeps_batch = 1, .fork_parent = 1,
                              .count_done = 1});
}

static void early_deliver(void);

/* The exit function may be called from a crash handler on a small alternate stack. */
static void early_hook(void)
{
    sl_with_room(early_deliver);
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
        sl_end_cycle(&(sl_ending){.keep = &early, .keeps_batch = 1, .fork_parent = 1});
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

/* exec: the image before it is a run of its own (face/exec.c). Delivered
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
        sl_why why = {0};
        sl_status_add(&why, "the program called exec (%s) before likwid_markerClose; no counter "
                          "data", what ? what : "?");
        early = (sl_delivered){0};
        exec_had_journal = sl_journal_path()[0] != '\0';
        sl_end_cycle(&(sl_ending){.why = sl_why_text(&why), .keep = &early, .keeps_batch = 1,
                                  .fork_parent = 1});
        sl_why_free(&why);
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
void sl_end_at_unload(void)
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
