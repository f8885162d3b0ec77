/* Terminating signals (SIGTERM at a batch system's walltime, ^C, a hangup,
 * a CPU-time limit, SIGUSR2): where the application left the default
 * action, the handler marks the journal with the signal (two stores,
 * async-signal-safe) and dies of the same signal with the default action,
 * so the exit status is what it would have been. Nothing else runs in the
 * dying process; the journal is turned into the result file outside it
 * (scope-likwid recover, or scope-likwid run by itself). A handler or
 * SIG_IGN the application set, before or after Init, is left alone: its
 * sigaction replaces ours. Crashes (SIGSEGV, SIGBUS, SIGABRT, SIGFPE) get
 * no handler at all: the journal carries them. */
#include "survive.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "journal_map.h"

static const int handled[] = {SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGUSR2};

static void on_signal(int sig)
{
    int saved = errno;
    sl_journal_mark_signal(sig);
    /* SA_RESETHAND restored the default and SA_NODEFER leaves the signal
     * unblocked: raised again, it ends the process as it would have. */
    raise(sig);
    errno = saved;
}

void sl_signals_install(void)
{
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) {
        struct sigaction old;
        if (sigaction(handled[i], NULL, &old) != 0)
            continue;
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
            continue;       /* the application's own: left alone */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER | SA_RESTART;
        sigaction(handled[i], &sa, NULL);
    }
}
