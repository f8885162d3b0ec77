/* One signal held in the calling thread around a call that may raise it
 * (SIGXFSZ past the file-size limit, SIGPIPE on a closed stderr): the one
 * it raised meanwhile is taken back, one pending before is left pending.
 * Async-signal-safe. */
#include "os.h"

#include <errno.h>
#include <signal.h>

static int pending(int sig)
{
    sigset_t p;
    return sigpending(&p) == 0 && sigismember(&p, sig) == 1;
}

void sl_sig_hold(int sig, sl_sig_held *h)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    h->sig = sig;
    pthread_sigmask(SIG_BLOCK, &s, &h->old);
    h->was_pending = pending(sig);
}

void sl_sig_release(sl_sig_held *h, int take_back)
{
    if (take_back && !h->was_pending && pending(h->sig)) {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, h->sig);
        const struct timespec zero = {0, 0};
        while (sigtimedwait(&s, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &h->old, NULL);
}
