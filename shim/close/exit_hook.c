/* The end of a process that called likwid_markerInit but not Close: the
 * timing is delivered without counters (LIKWID is not asked: its own exit
 * work may already have run).
 *
 * Two hooks. The early one is an atexit handler registered at Init: exit()
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
#include "shim.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deliver.h"
#include "journal_map.h"
#include "log.h"
#include "status_text.h"
#include "survive.h"

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
    if (sl_g.cycle > 1)
        sl_text_add(&status, "Init..Close cycle %d of process %lld", sl_g.cycle,
                    (long long)sl_g.pid);
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
    if (saved)
        sl_survive_end();   /* else the journal is the last copy: it stays */
    sl_fork_deliver_parent();
    return saved;
}

void sl_close_at_exit(void)
{
    if (atomic_load(&sl_mode) != SL_MODE_ACTIVE || getpid() != sl_g.pid)
        return;
    if (!sl_close_claim())
        return;
    sl_signals_finishing(1);
    deliver_at_exit(NULL, NULL);
    sl_signals_finishing(0);
    sl_cycle_close_done();
}

static void early_hook(void)
{
    if (atomic_load(&sl_mode) != SL_MODE_ACTIVE || getpid() != sl_g.pid)
        return;
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
        unlink(early.written ? early.written : early.rescue);
        free(early.written);
        free(early.rescue);
        early = (sl_delivered){0};
        early_done = 0;
    }
    pthread_mutex_unlock(&early_lock);
}

/* exec: the image before it is a run of its own (wrap_exec.c). Delivered
 * as the early hook does, without finishing the cycle: when the exec fails
 * the program goes on, and the result written for it is removed again, so
 * that the one at its Close or exit holds every call once. */
static int exec_pending;

void sl_exec_begin(const char *what)
{
    if (atomic_load(&sl_mode) != SL_MODE_ACTIVE || getpid() != sl_g.pid)
        return;
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
