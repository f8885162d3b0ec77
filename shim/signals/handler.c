/* Terminating signals (SIGTERM at a batch system's walltime, ^C, a hangup,
 * a CPU-time limit, SIGUSR2): where the application left the default
 * action, the handler marks the journal with the signal (two stores), has
 * the writer turn the journal into the result file (sigwrite.c), and then
 * does what SIG_DFL does: the process ends of that signal, with the exit
 * status it would have had. Only async-signal-safe calls run here.
 *
 * The handler behaves as SIG_DFL however it is reached: delivered as the
 * installed handler, or called by another handler that was installed after
 * ours and saved it (a library chaining to "the previous handler"). It
 * therefore sets SIG_DFL itself and unblocks the signal before raising it
 * again; relying on SA_RESETHAND would re-enter the other handler, which
 * would call us again, for ever.
 *
 * A handler or SIG_IGN the application set before Init is left alone (we
 * install nothing there); one set after Init replaces ours, and it alone
 * decides whether ours is called. Crashes (SIGSEGV, SIGBUS, SIGABRT,
 * SIGFPE) get no handler at all: the journal carries them. */
#include "signals.h"
#include <errno.h>
#include <string.h>
#include <sys/wait.h>

static const int handled[] = {SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGUSR2};

static pid_t owner;                 /* the process whose journal it is */
static double wait_s;               /* how long a second signal waits for the first */
static _Atomic int journal_done;    /* the result was delivered: nothing to write */
static _Atomic int handling;        /* 0 idle, 1 a handler writes, 2 done */

void sl_signals_journal_done(void)
{
    atomic_store(&journal_done, 1);
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The result, once per process, by whichever signal comes first. */
static void write_result(int sig)
{
    int idle = 0;
    if (!atomic_compare_exchange_strong(&handling, &idle, 1)) {
        /* Another thread's handler is writing it: let it finish (bounded). */
        for (long waited = 0; atomic_load(&handling) == 1 && waited < (long)(wait_s * 1000);
             waited += 10)
            nap_ms(10);
        return;
    }
    /* Close or the exit hook delivering in another thread: let it finish
     * (it may take the collector's and the writer's time). */
    pid_t f = sl_finisher();
    for (long waited = 0; f && f != gettid() && waited < (long)(2 * wait_s * 1000);
         waited += 10) {
        nap_ms(10);
        f = sl_finisher();
    }
    if (!atomic_load(&journal_done)) {
        /* The one finisher of this cycle: Close and the exit hook stay out. */
        if (!sl_finisher() && sl_close_claim()) {
            sl_close_delivering(1);     /* a Close meanwhile waits for the writer */
            sl_sigwrite_run(sig);
        }
        else
            sl_sigwrite_hint(sig);  /* interrupted them, or their delivery failed */
    }
    atomic_store(&handling, 2);
}

/* A PID namespace's init (a container's entry point, PID 1 everywhere):
 * the kernel drops every signal whose action is SIG_DFL (SIGKILL and
 * SIGSTOP from outside excepted), so a SIGTERM sent to it changes nothing.
 * A handler of ours would make it change everything (the cycle finished,
 * later calls answered by the shim): it gets none, and a handler reached
 * anyway (a library chaining to the previous one) does what SIG_DFL does
 * there: nothing. */
static int drops_default_signals(void)
{
    return getpid() == 1;
}

static void on_signal(int sig)
{
    if (drops_default_signals())
        return;
    int saved = errno;
    sigset_t all, others;
    sigfillset(&all);
    /* Nothing interrupts the writing; a SIGPIPE from our one line stays
     * pending and never changes how the process ends. */
    sigprocmask(SIG_BLOCK, &all, NULL);
    if (getpid() == owner) {
        sl_journal_mark_signal(sig);
        write_result(sig);
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);                     /* pending: blocked */
    sigfillset(&others);
    sigdelset(&others, sig);
    sigprocmask(SIG_SETMASK, &others, NULL);    /* delivered here: the process ends */
    errno = saved;
}

void sl_signals_install(pid_t pid, double timeout_s)
{
    /* Also in a forked child that times regions of its own: the handlers
     * it inherited become its own, for its journal. */
    owner = pid;
    atomic_store(&journal_done, 0);
    atomic_store(&handling, 0);
    sl_signals_finishing(0);
    /* A second signal, in another thread, waits as long as the writer may
     * take, plus a little. */
    wait_s = timeout_s + WRITER_GRACE_S + 2;
    if (drops_default_signals())
        return;
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) {
        struct sigaction old;
        if (sigaction(handled[i], NULL, &old) != 0)
            continue;
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
            continue;       /* the application's own (or ours, inherited): left alone */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        /* Entered with every signal blocked. A further signal of the five
         * while the writer runs, in any thread, waits for it: a batch
         * system signals the whole job at its walltime, the same signal
         * more than once within milliseconds (Slurm: slurmstepd and srun),
         * and a process that died of the second would take its writer
         * along (the step's leftover processes are killed). SIGQUIT and
         * SIGKILL still end the process at once. */
        sigfillset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(handled[i], &sa, NULL);
    }
}
