/* Reading a helper's pipes until it ends, not until EOF. */
#include "spawn.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>

/* A process the application forks while a helper runs (a manager thread
 * starting workers during Close, a signal) inherits the write ends of the
 * helper's pipes and holds them as long as it lives: EOF would come only
 * with the deadline. So the reading loops also watch the helper's end,
 * with a pidfd of the keeper (readable once it exited), else by looking
 * every 10 ms; once it ended, what is left in the pipes is read without
 * waiting, and the loop stops. Async-signal-safe. */
void sl_child_watch_start(sl_child_watch *w, sl_child *c)
{
    *w = (sl_child_watch){.c = c, .pidfd = sl_child_pidfd(c)};
}

unsigned long sl_child_watch_add(sl_child_watch *w, struct pollfd *pf, unsigned long n, int *ms)
{
    if (w->ended) {
        *ms = 0;            /* only what is already in the pipes */
        return n;
    }
    if (w->pidfd < 0) {
        if (*ms > 10)
            *ms = 10;
        return n;
    }
    pf[n] = (struct pollfd){.fd = w->pidfd, .events = POLLIN};
    return n + 1;
}

int sl_child_watch_over(sl_child_watch *w, const struct pollfd *pf, unsigned long n, int got)
{
    if (w->ended)
        return !got;        /* the pipes hold nothing more */
    if (w->pidfd >= 0)
        w->ended = pf[n].revents != 0;
    else if (w->c->host >= 0)
        w->ended = sl_host_child_ended(w->c);
    else
        w->ended = sl_child_ended(w->c);
    return 0;
}

void sl_child_watch_end(sl_child_watch *w)
{
    if (w->pidfd >= 0)
        close(w->pidfd);
    w->pidfd = -1;
}

int sl_child_read(sl_child *c, int fds[2], sl_deadline *d, int (*take)(void *ctx, int stream),
                  void *ctx)
{
    int in_time = 1;
    sl_child_watch w;
    sl_child_watch_start(&w, c);
    for (;;) {
        struct pollfd pf[3];
        int idx[2], n = 0;
        for (int i = 0; i < 2; i++)
            if (fds[i] >= 0) {
                pf[n] = (struct pollfd){.fd = fds[i], .events = POLLIN};
                idx[n++] = i;
            }
        if (n == 0)
            break;
        int ms = sl_deadline_ms(d);
        if (ms == 0) {
            in_time = 0;
            break;
        }
        if (poll(pf, sl_child_watch_add(&w, pf, (nfds_t)n, &ms), ms) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        int got = 0;
        for (int k = 0; k < n; k++)
            if (pf[k].revents) {
                got = 1;
                if (take(ctx, idx[k]))
                    fds[idx[k]] = -1;
            }
        if (sl_child_watch_over(&w, pf, (nfds_t)n, got))
            break;
    }
    sl_child_watch_end(&w);
    return in_time;
}
