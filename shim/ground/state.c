/* The process state (sl_g, the mode) and who ends this cycle (the claim,
 * the delivering thread, the finisher a signal waits for). */
#include "ground.h"

#include <sys/wait.h>

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

/* The marker API as the shim answers it: timing of every region, the
 * hazards of likwid-api.md kept away from LIKWID, everything else forwarded
 * to LIKWID's real C functions. One path for C and Fortran callers. */
#define RELAXED memory_order_relaxed

sl_state sl_g;
_Atomic int sl_mode = SL_MODE_IDLE;
_Atomic int sl_in_real_init;
_Atomic int sl_next_group_calls;

static _Atomic pid_t finisher;      /* the thread in Close or the exit hook, 0: none */

void sl_signals_finishing(int on)
{
    atomic_store(&finisher, on ? gettid() : 0);
}

pid_t sl_finisher(void)
{
    return atomic_load(&finisher);
}
