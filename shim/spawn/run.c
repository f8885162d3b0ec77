/* Running a helper to its end: pipes, a deadline, capped output, the
 * outcome in one line. */
#include "spawn.h"
#include "vec.h"

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

/* Running a helper program from inside the application (see spawn.h). */
/* Keeps our pipe ends off 0-2 (an application may have closed them) so the
 * child's dup2 onto 1 and 2 never meets one of them. */
int sl_spawn_above_stdio(int fd)
{
    if (fd > 2)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return moved;
}

int sl_spawn_pipe(int p[2])
{
    if (pipe2(p, O_CLOEXEC) != 0)
        return -errno;
    p[0] = sl_spawn_above_stdio(p[0]);
    p[1] = sl_spawn_above_stdio(p[1]);
    if (p[0] < 0 || p[1] < 0) {
        int e = errno;
        if (p[0] >= 0)
            close(p[0]);
        if (p[1] >= 0)
            close(p[1]);
        return -e;
    }
    return 0;
}

typedef struct stream {
    int fd;
    char *buf;
    size_t len, cap, max;
    int truncated;
} stream;

/* Reads what is there; returns 1 at EOF or error, 0 otherwise. Straight
 * into the stream's buffer: no large stack buffer (Close may run on a
 * thread with a small stack). */
static int drain(stream *s)
{
    enum { STEP = 65536, SMALL_STEP = 1024 };
    char sink[256];     /* past the limit or out of memory: read and drop */
    char *dst = sink;
    size_t room = sizeof sink, step = STEP;
    /* Little address space left (ulimit -v): smaller pieces, so that the
     * writer's one line (the path it wrote) is still read. */
    int have = !s->truncated && s->len < s->max &&
               (SL_VEC_RESERVE(s->buf, s->cap, s->len, STEP + 1) == 0 ||
                (step = SMALL_STEP, SL_VEC_RESERVE(s->buf, s->cap, s->len, SMALL_STEP + 1) == 0));
    if (have) {
        dst = s->buf + s->len;
        room = s->max - s->len < step ? s->max - s->len : step;
    } else if (s->len < s->max) {
        s->truncated = 1;   /* keep reading so the child never blocks on a full pipe */
    }
    ssize_t n = read(s->fd, dst, room);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : 1;
    if (n == 0)
        return 1;
    if (dst == sink) {
        if (s->len >= s->max)
            s->truncated = 1;
        return 0;
    }
    s->len += (size_t)n;
    s->buf[s->len] = '\0';
    return 0;
}

/* Waits for the helper until the deadline: 1 with its status, 0 when still
 * running at the deadline, -errno. */
static int wait_until(sl_child *c, int *status, sl_deadline *d)
{
    for (;;) {
        int r = sl_child_poll(c, status, 0);
        if (r != 0)
            return r;
        int ms = sl_deadline_ms(d);
        if (ms == 0)
            return 0;
        /* Short naps: the exit is seen within 2 ms. */
        struct timespec ts = {0, (ms < 2 ? ms : 2) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

int sl_spawn_run(const char *const argv[], char *const envp[], double timeout_s,
                 size_t max_output, sl_spawn_result *res)
{
    return sl_spawn_run_in(argv, envp, timeout_s, max_output, -1, res);
}

/* Two pipes, the map, the helper started on them; 0 (out[0], err[0] the
 * read ends, *map kept) or -errno with everything closed. */
static int start_child(sl_child *child, void **map, const char *const argv[], char *const envp[],
                       double timeout_s, int in_fd, int out[2], int err[2])
{
    int rc = sl_spawn_pipe(out);
    if (rc == 0) {
        rc = sl_spawn_pipe(err);
        if (rc != 0) {
            close(out[0]);
            close(out[1]);
        }
    }
    *map = rc == 0 ? sl_child_map() : NULL;
    if (rc == 0 && !*map) {
        rc = -ENOMEM;
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
    }
    if (rc == 0) {
        rc = sl_child_start(child, *map, argv[0], (char *const *)argv, envp, in_fd, out[1],
                            err[1], timeout_s, 0);
        close(out[1]);
        close(err[1]);
        if (rc != 0) {
            close(out[0]);
            close(err[0]);
        }
    }
    return rc;
}

/* One ready stream read (sl_child_read's take): 1 when it ended, closed. */
static int take_stream(void *ctx, int i)
{
    stream *s = ctx;
    if (!drain(&s[i]))
        return 0;
    close(s[i].fd);
    s[i].fd = -1;
    return 1;
}

/* Both pipes read until they end or the helper ended with them empty;
 * 1 when the deadline came first. The read ends are closed. */
static int read_pipes(sl_child *child, stream s[2], sl_deadline *deadline)
{
    int fds[2] = {s[0].fd, s[1].fd};
    int timed_out = !sl_child_read(child, fds, deadline, take_stream, s);
    for (int i = 0; i < 2; i++)
        if (s[i].fd >= 0)
            close(s[i].fd);
    return timed_out;
}

/* How it ended: res's outcome from the wait. */
static void outcome_of(sl_spawn_result *res, int timed_out, int w, int status)
{
    if (timed_out)
        res->outcome = SL_SPAWN_TIMED_OUT;
    else if (w < 0)
        res->outcome = SL_SPAWN_NO_STATUS;
    else if (WIFEXITED(status)) {
        res->outcome = SL_SPAWN_EXITED;
        res->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->outcome = SL_SPAWN_SIGNALED;
        res->signal = WTERMSIG(status);
    } else {
        res->outcome = SL_SPAWN_NO_STATUS;
    }
}

/* The first half of running a helper: the pipes and the helper started
 * (job). 0, or -errno (then res is filled as a helper that could not be
 * started). */
int sl_spawn_begin(const char *const argv[], char *const envp[], double timeout_s,
                   size_t max_output, int in_fd, sl_spawn_job *job, sl_spawn_result *res)
{
    memset(res, 0, sizeof *res);
    res->outcome = SL_SPAWN_FAILED;
    *job = (sl_spawn_job){.out = -1, .err = -1, .feed = -1,
                          .max_output = max_output ? max_output : SL_SPAWN_MAX_OUTPUT};
    int out[2], err[2];
    void *map = NULL;
    int rc = start_child(&job->child, &map, argv, envp, timeout_s, in_fd, out, err);
    if (rc != 0) {
        sl_child_unmap(map);
        res->error = -rc;
        res->out = strdup("");
        res->err = strdup("");
        return rc;
    }
    job->map = map;
    job->out = out[0];
    job->err = err[0];
    return 0;
}

int sl_spawn_finish(sl_spawn_job *job, double timeout_s, sl_spawn_result *res)
{
    memset(res, 0, sizeof *res);
    if (job->feed >= 0)
        close(job->feed);
    job->feed = -1;
    sl_child child = job->child;
    void *map = job->map;
    sl_deadline deadline;
    sl_deadline_start(&deadline, timeout_s);
    stream s[2] = {{.fd = job->out, .max = job->max_output},
                   {.fd = job->err, .max = job->max_output}};
    int timed_out = read_pipes(&child, s, &deadline);

    int status = 0;
    int w = timed_out ? 0 : wait_until(&child, &status, &deadline);
    if (w == 0) {
        /* Still running at the deadline (pipes full, or closed early). */
        timed_out = 1;
        sl_child_kill(&child);
        w = sl_child_poll(&child, &status, 1);
    }
    sl_child_unmap(map);
    *job = (sl_spawn_job){.out = -1, .err = -1, .feed = -1};
    outcome_of(res, timed_out, w, status);
    res->out = s[0].buf ? s[0].buf : strdup("");
    res->out_len = s[0].len;
    res->err = s[1].buf ? s[1].buf : strdup("");
    res->err_len = s[1].len;
    res->truncated = s[0].truncated || s[1].truncated;
    return 0;
}

int sl_spawn_run_in(const char *const argv[], char *const envp[], double timeout_s,
                    size_t max_output, int in_fd, sl_spawn_result *res)
{
    sl_spawn_job job;
    int rc = sl_spawn_begin(argv, envp, timeout_s, max_output, in_fd, &job, res);
    return rc != 0 ? rc : sl_spawn_finish(&job, timeout_s, res);
}

int sl_spawn_feed(sl_spawn_job *job, const char *s, size_t n)
{
    while (n > 0 && job->feed >= 0) {
        ssize_t w = send(job->feed, s, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -(w < 0 ? errno : EPIPE);
        s += w;
        n -= (size_t)w;
    }
    return job->feed >= 0 ? 0 : -EBADF;
}

void sl_spawn_dismiss(sl_spawn_job *job)
{
    if (!job->map)
        return;     /* finished, or never started */
    int status;
    sl_child_kill(&job->child);
    sl_child_poll(&job->child, &status, 1);
    sl_child_unmap(job->map);
    int fds[] = {job->feed, job->out, job->err};
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    *job = (sl_spawn_job){.out = -1, .err = -1, .feed = -1};
}

void sl_spawn_result_free(sl_spawn_result *res)
{
    free(res->out);
    free(res->err);
    memset(res, 0, sizeof *res);
}

char *sl_last_line(const char *s, size_t len)
{
    size_t end = len;
    while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == '\r' || s[end - 1] == ' '))
        end--;
    size_t begin = end;
    while (begin > 0 && s[begin - 1] != '\n')
        begin--;
    /* Long lines are cut: this is for a one-line status. */
    if (end - begin > 300)
        end = begin + 300;
    char *l = malloc(end - begin + 1);
    if (l) {
        memcpy(l, s + begin, end - begin);
        l[end - begin] = '\0';
    }
    return l;
}

char *sl_spawn_describe(const sl_spawn_result *res, double timeout_s)
{
    char *last = res->err ? sl_last_line(res->err, res->err_len) : NULL;
    const char *l = last ? last : "";
    char buf[512];
    switch (res->outcome) {
    case SL_SPAWN_EXITED: {
        int n = snprintf(buf, sizeof buf, "exited with status %d", res->exit_code);
        if (*l && n > 0 && (size_t)n < sizeof buf)
            snprintf(buf + n, sizeof buf - (size_t)n, ": %s", l);
        break;
    }
    case SL_SPAWN_SIGNALED: {
        int n = snprintf(buf, sizeof buf, "killed by signal %d", res->signal);
        if (*l && n > 0 && (size_t)n < sizeof buf)
            snprintf(buf + n, sizeof buf - (size_t)n, " (stderr: %s)", l);
        break;
    }
    case SL_SPAWN_TIMED_OUT:
        snprintf(buf, sizeof buf, "timed out after %.3g s", timeout_s);
        break;
    case SL_SPAWN_NO_STATUS:
        snprintf(buf, sizeof buf, "exit status unknown (the application reaps clone children)");
        break;
    default:
        if (res->error == SL_ESANDBOX)
            snprintf(buf, sizeof buf, "not started: %s", SL_SANDBOX_WHY);
        else
            snprintf(buf, sizeof buf, "could not be started: %s", strerror(res->error));
        break;
    }
    free(last);
    return strdup(buf);
}
