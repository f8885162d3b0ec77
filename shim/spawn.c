/* Starting the helper programs: where they are, running one (pipes,
 * deadline, capped output), and the helper process itself. */
#include "shim.h"
#include "anchor.h"
#include "mac.h"
#include "vec.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

/* ==== helpers ==== */

/* Where the helpers are and how they are started (see shim.h). */
#ifndef SL_HELPER_REL_INSTALLED
#define SL_HELPER_REL_INSTALLED "../libexec"
#endif

extern char **environ;

/* The shim's own file, resolved once when it is loaded: LD_PRELOAD may name
 * it by a relative path, which a later chdir() would point elsewhere. */
static char *self_at_load;

static void resolve_self(void)
{
    Dl_info info;
    /* Any function of the shim names its file. */
    if (!self_at_load && dladdr((void *)(uintptr_t)&resolve_self, &info) && info.dli_fname &&
        info.dli_fname[0])
        self_at_load = realpath(info.dli_fname, NULL);
}

static void keeper_kind_at_load(void);

/* The steps taken when the shim is loaded (its constructors), taken again
 * by the first Init: a library that calls likwid_markerInit in its own
 * constructor may run before ours (the loader runs constructors in
 * dependency order, and nothing orders an application's library after a
 * preloaded one). Each step is done once. */
__attribute__((constructor)) void sl_spawn_at_load(void)
{
    resolve_self();
    keeper_kind_at_load();
}

char *sl_self_path(void)
{
    return self_at_load ? strdup(self_at_load) : NULL;
}

/* Paths as at Init (anchor.h): after a chroot, the helper runs from the
 * root of Init (helper_main). */
static char *check_exec(const char *path, char **problem)
{
    if (sl_at_access(path, X_OK) == 0)
        return strdup(path);
    int e = errno, n;
    /* On the heap: Close may run on a thread with a small stack. */
    if (e == ENOENT || e == ENOTDIR)
        n = asprintf(problem, "not found: %s", path);
    else
        n = asprintf(problem, "not executable: %s (%s)", path, strerror(e));
    if (n < 0)
        *problem = NULL;
    return NULL;
}

char *sl_helper_path(const char *override, const char *name, char **problem)
{
    *problem = NULL;
    if (override)
        return check_exec(override, problem);
    char *self = sl_self_path();
    if (!self) {
        *problem = strdup("not found: the shim's own path is unknown");
        return NULL;
    }
    char *slash = strrchr(self, '/');
    *slash = '\0';
    const char *rel[] = {SL_HELPER_REL_INSTALLED, "../helpers"};
    char *cand[2] = {NULL, NULL};      /* on the heap: no large stack buffer */
    char *found = NULL;
    for (int i = 0; i < 2 && !found; i++)
        if (asprintf(&cand[i], "%s/%s/%s", self, rel[i], name) < 0)
            cand[i] = NULL;
        else if (sl_at_access(cand[i], X_OK) == 0)
            found = strdup(cand[i]);
    free(self);
    /* Neither there: report the installed location. */
    if (!found && cand[0])
        found = check_exec(cand[0], problem);
    else if (!found)
        *problem = strdup("not found: out of memory");
    free(cand[0]);
    free(cand[1]);
    return found;
}

/* The application's environment: no helper runs in a setuid or setgid
 * program (do_init leaves it alone), so it is the user's own. */
char **sl_helper_environ(void)
{
    char *self = sl_self_path();
    char **env = sl_helper_env(environ, self);
    free(self);
    return env;
}

static int spawn_run(const char *const argv[], char *const envp[], double timeout_s,
                     size_t max_output, int in_fd, sl_spawn_result *res);

int sl_helper_run_in(const char *const argv[], double timeout_s, int in_fd, sl_spawn_result *res)
{
    char **env = sl_helper_environ();
    if (!env) {
        memset(res, 0, sizeof *res);
        res->outcome = SL_SPAWN_FAILED;
        res->error = ENOMEM;
        return -ENOMEM;
    }
    int rc = spawn_run(argv, env, timeout_s, 0, in_fd, res);
    sl_env_free(env);
    return rc;
}

int sl_helper_run(const char *const argv[], double timeout_s, sl_spawn_result *res)
{
    return sl_helper_run_in(argv, timeout_s, -1, res);
}

static int spawn_begin(const char *const argv[], char *const envp[], double timeout_s,
                       size_t max_output, int in_fd, sl_spawn_job *job, sl_spawn_result *res);
static int above_stdio(int fd);

int sl_helper_start_fed(const char *const argv[], sl_spawn_job *job)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return -errno;
    sv[0] = above_stdio(sv[0]);
    sv[1] = above_stdio(sv[1]);
    char **env = sv[0] >= 0 && sv[1] >= 0 ? sl_helper_environ() : NULL;
    sl_spawn_result res = {0};
    *job = (sl_spawn_job){.out = -1, .err = -1, .feed = -1};
    int rc = sv[0] < 0 || sv[1] < 0 ? -EMFILE
             : !env                 ? -ENOMEM
                                    : spawn_begin(argv, env, 0, 0, sv[1], job, &res);
    sl_env_free(env);
    if (sv[1] >= 0)
        close(sv[1]);
    if (rc != 0) {
        sl_spawn_result_free(&res);
        if (sv[0] >= 0)
            close(sv[0]);
        return rc;
    }
    job->feed = sv[0];
    return 0;
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

/* ==== spawn ==== */

/* Running a helper program from inside the application (see spawn.h). */
/* Keeps our pipe ends off 0-2 (an application may have closed them) so the
 * child's dup2 onto 1 and 2 never meets one of them. */
static int above_stdio(int fd)
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
    p[0] = above_stdio(p[0]);
    p[1] = above_stdio(p[1]);
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
    return spawn_run(argv, envp, timeout_s, max_output, -1, res);
}

/* The first half of spawn_run: the pipes and the helper started. 0, or
 * -errno (then res is filled as a helper that could not be started). */
static int spawn_begin(const char *const argv[], char *const envp[], double timeout_s,
                       size_t max_output, int in_fd, sl_spawn_job *job, sl_spawn_result *res)
{
    memset(res, 0, sizeof *res);
    res->outcome = SL_SPAWN_FAILED;
    *job = (sl_spawn_job){.out = -1, .err = -1, .feed = -1,
                          .max_output = max_output ? max_output : SL_SPAWN_MAX_OUTPUT};
    int out[2], err[2];
    int rc = sl_spawn_pipe(out);
    if (rc == 0) {
        rc = sl_spawn_pipe(err);
        if (rc != 0) {
            close(out[0]);
            close(out[1]);
        }
    }
    void *map = rc == 0 ? sl_child_map() : NULL;
    if (rc == 0 && !map) {
        rc = -ENOMEM;
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
    }
    if (rc == 0) {
        rc = sl_child_start(&job->child, map, argv[0], (char *const *)argv, envp, in_fd, out[1],
                            err[1], timeout_s, 0);
        close(out[1]);
        close(err[1]);
        if (rc != 0) {
            close(out[0]);
            close(err[0]);
        }
    }
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

static int spawn_run(const char *const argv[], char *const envp[], double timeout_s,
                     size_t max_output, int in_fd, sl_spawn_result *res)
{
    sl_spawn_job job;
    int rc = spawn_begin(argv, envp, timeout_s, max_output, in_fd, &job, res);
    return rc != 0 ? rc : sl_spawn_finish(&job, timeout_s, res);
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
    int open_n = 2, timed_out = 0;
    sl_child_watch watch;
    sl_child_watch_start(&watch, &child);
    while (open_n > 0) {
        struct pollfd pf[3];
        int idx[2], n = 0;
        for (int i = 0; i < 2; i++)
            if (s[i].fd >= 0) {
                pf[n] = (struct pollfd){.fd = s[i].fd, .events = POLLIN};
                idx[n++] = i;
            }
        int ms = sl_deadline_ms(&deadline);
        if (ms == 0) {
            timed_out = 1;
            break;
        }
        int pr = poll(pf, sl_child_watch_add(&watch, pf, (nfds_t)n, &ms), ms);
        if (pr < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        int got = 0;
        for (int k = 0; k < n; k++)
            if (pf[k].revents) {
                got = 1;
                if (drain(&s[idx[k]])) {
                    close(s[idx[k]].fd);
                    s[idx[k]].fd = -1;
                    open_n--;
                }
            }
        if (sl_child_watch_over(&watch, pf, (nfds_t)n, got))
            break;
    }
    sl_child_watch_end(&watch);
    for (int i = 0; i < 2; i++)
        if (s[i].fd >= 0)
            close(s[i].fd);

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
    res->out = s[0].buf ? s[0].buf : strdup("");
    res->out_len = s[0].len;
    res->err = s[1].buf ? s[1].buf : strdup("");
    res->err_len = s[1].len;
    res->truncated = s[0].truncated || s[1].truncated;
    return 0;
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

static int is_our_lib(const char *entry, size_t len, const char *self_real)
{
    static const char name[] = "libscope_likwid.so";
    const size_t nlen = sizeof name - 1;
    size_t b = len;
    while (b > 0 && entry[b - 1] != '/')
        b--;
    size_t blen = len - b;
    if (blen >= nlen && memcmp(entry + b, name, nlen) == 0 &&
        (blen == nlen || entry[b + nlen] == '.'))
        return 1;
    if (!self_real || len >= PATH_MAX)
        return 0;
    /* Paths on the heap: no large stack buffer. */
    char *path = strndup(entry, len), *real = path ? realpath(path, NULL) : NULL;
    int same = real && strcmp(real, self_real) == 0;
    free(real);
    free(path);
    return same;
}

char *sl_ld_preload_clean(const char *value, const char *self_path, int *oom)
{
    *oom = 0;
    char *sr = self_path ? realpath(self_path, NULL) : NULL;
    size_t vlen = strlen(value);
    char *out = malloc(vlen + 1);
    if (!out) {
        free(sr);
        *oom = 1;
        return NULL;
    }
    size_t n = 0;
    const char *p = value;
    while (*p) {
        size_t len = strcspn(p, " :\t");
        if (len && !is_our_lib(p, len, sr)) {
            if (n)
                out[n++] = ':';
            memcpy(out + n, p, len);
            n += len;
        }
        p += len;
        if (*p)
            p++;
    }
    out[n] = '\0';
    free(sr);
    if (!n) {
        free(out);
        return NULL;
    }
    return out;
}

void sl_env_free(char **env)
{
    if (!env)
        return;
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
}

/* What execve takes: one string of at most MAX_ARG_STRLEN bytes (32
 * pages, its NUL included), and argv and envp together (strings and
 * pointers) within a quarter of the stack limit (sysconf's ARG_MAX). An
 * application may set a variable of any size after Init (a 200 KiB one:
 * "Argument list too long", and no helper): such strings are left out of a
 * helper's environment, the longest first, so that the rest fits with
 * room for argv (SL_HELPER_ARGV_ROOM). None is the helpers' business. */
#define MAX_ARG_STRLEN_BYTES ((size_t)32 * 4096)
#define SL_HELPER_ARGV_ROOM ((size_t)3 * PATH_MAX + 4096)

static size_t env_budget(void)
{
    long arg_max = sysconf(_SC_ARG_MAX);
    size_t limit = arg_max > 0 ? (size_t)arg_max : (size_t)128 << 10;
    return limit > SL_HELPER_ARGV_ROOM * 2 ? limit - SL_HELPER_ARGV_ROOM : limit / 2;
}

/* Leaves out of env (NULL-terminated, k entries) the longest strings until
 * the rest fits the budget; each one too long alone goes first. */
static void env_fit(char **env, size_t k)
{
    size_t total = sizeof(char *), budget = env_budget();
    for (size_t i = 0; i < k; i++) {
        size_t len = strlen(env[i]) + 1;
        if (len > MAX_ARG_STRLEN_BYTES) {
            sl_log_debug("a helper's environment leaves out a %zu-byte variable", len);
            free(env[i]);
            env[i] = NULL;
        } else {
            total += len + sizeof(char *);
        }
    }
    while (total > budget) {
        size_t longest = k, longest_len = 0;
        for (size_t i = 0; i < k; i++)
            if (env[i] && strlen(env[i]) > longest_len) {
                longest = i;
                longest_len = strlen(env[i]);
            }
        if (longest == k)
            break;
        sl_log_debug("a helper's environment leaves out a %zu-byte variable", longest_len + 1);
        free(env[longest]);
        env[longest] = NULL;
        total -= longest_len + 1 + sizeof(char *);
    }
    size_t w = 0;
    for (size_t i = 0; i < k; i++)
        if (env[i])
            env[w++] = env[i];
    env[w] = NULL;
}

char **sl_helper_env(char *const environ_[], const char *self_path)
{
    size_t n = 0;
    while (environ_ && environ_[n])
        n++;
    char **env = calloc(n + 4, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    int failed = 0;
    for (size_t i = 0; i < n && !failed; i++) {
        const char *e = environ_[i];
        if (strncmp(e, "SCOPE_LIKWID_DISABLE=", 21) == 0 ||
            strncmp(e, SL_WRITE_KEY_ENV "=", sizeof SL_WRITE_KEY_ENV) == 0)
            continue;
        if (strncmp(e, "LD_PRELOAD=", 11) == 0) {
            int oom;
            char *clean = sl_ld_preload_clean(e + 11, self_path, &oom);
            if (oom)
                failed = 1;
            else if (clean) {
                env[k] = malloc(11 + strlen(clean) + 1);
                if (env[k]) {
                    memcpy(env[k], "LD_PRELOAD=", 11);
                    strcpy(env[k] + 11, clean);
                    k++;
                } else {
                    failed = 1;
                }
                free(clean);
            }
            continue;
        }
        if (!(env[k++] = strdup(e)))
            failed = 1;
    }
    if (failed) {
        sl_env_free(env);
        return NULL;
    }
    env_fit(env, k);
    for (k = 0; env[k]; k++)
        ;
    if (!(env[k] = strdup("SCOPE_LIKWID_DISABLE=1"))) {
        sl_env_free(env);
        return NULL;
    }
    /* the key the writer proves its result with (proof.c) */
    if (sl_proof_env()[0] && !(env[++k] = strdup(sl_proof_env()))) {
        sl_env_free(env);
        return NULL;
    }
    return env;
}

/* ==== spawn child ==== */

/* The helper process itself (see shim.h). The application must get
 * no SIGCHLD from it and never see it in its wait()/waitpid(-1): only a
 * clone child without exit signal is like that, and an execve gives any
 * process the exit signal SIGCHLD again. So there are two: a "keeper", a
 * clone child without exit signal sharing our memory (it never execs; the
 * application's wait() cannot see it, only a wait by pid with __WALL, and
 * its end sends nothing), and the helper, the keeper's own child, which
 * execs the program. The keeper waits for the helper and leaves its wait
 * status in shared memory; the helper's SIGCHLD goes to the keeper.
 *
 * The keeper runs alongside the caller in the same memory, on its own
 * stack, with every signal blocked (no handler of the application ever
 * runs in it), touching nothing but the job below. It shares the caller's
 * thread pointer, so errno is the caller's: the keeper and the helper set
 * it only on failures, which the caller learns from the job, never from
 * errno. Everything here is async-signal-safe: the signal handler starts
 * the writer this way too. */
/* At the start of the mapping; the helper's stack above it, the keeper's
 * stack in the upper half. */
typedef struct child_job {
    const char *path;
    char *const *argv;
    char *const *envp;
    int in_fd, out_fd, err_fd;
    int old_root;               /* the root of Init to return to (-1: none) */
    _Atomic int state;          /* 0 starting, 1 running, -errno: not started */
    _Atomic pid_t helper;
    _Atomic int status;         /* the helper's wait status, once the keeper ended */
    volatile int exec_error;    /* set by the helper when its execve failed */
    int flags;                  /* SL_CHILD_OUTLIVE_TERM */
    _Atomic int keeper_done;    /* the keeper ended by itself (status is there) */
    /* sl_child_kill never signals a pid that may have been reaped (and
     * reused): the keeper waits for the helper's end without reaping it,
     * says it reaps, and reaps only while no kill is under way; a kill is
     * sent only while the keeper has not said so. */
    _Atomic int killing, reaping;
} child_job;

static int keeper_is_copy;      /* see keeper_kind_at_load */

/* fds 0-2 are in_fd, out_fd, err_fd (each -1: /dev/null; each above 2). */
static int set_stdio(int in_fd, int out_fd, int err_fd)
{
    int want[3] = {in_fd, out_fd, err_fd};
    for (int i = 0; i < 3; i++)
        if (want[i] >= 0 && dup2(want[i], i) < 0)
            return -1;
    /* fds from 3 up go: the helper holds none of the application's. */
    if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0) {
        struct rlimit rl;
        int top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536
                      ? (int)rl.rlim_cur : 65536;
        for (int fd = 3; fd < top; fd++)
            close(fd);
    }
    for (int i = 0; i < 3; i++) {
        if (want[i] >= 0)
            continue;
        close(i);
        int fd = open("/dev/null", i == 0 ? O_RDONLY : O_WRONLY);
        if (fd < 0)
            return -1;
        if (fd != i) {
            if (dup2(fd, i) < 0)
                return -1;
            close(fd);
        }
    }
    return 0;
}

/* After a chroot: the helper runs in the root of Init, where its path,
 * its interpreter and libraries and every path it is given mean what they
 * meant at Init (chroot needs the privilege the process had to chroot: a
 * process that has since given it up execs in its new root). */
static void return_to_root(int old_root)
{
    int here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fchdir(old_root) == 0 && chroot(".") != 0 && here >= 0)
        fchdir(here);   /* not outside the new root without being in the old one */
    if (here >= 0)
        close(here);
}

/* The helper: every signal at its default (SIGTERM, SIGINT and SIGHUP
 * ignored for SL_CHILD_OUTLIVE_TERM), none blocked, then execve. Its
 * parent (the keeper) is suspended until the execve (CLONE_VFORK). */
static int helper_main(void *p)
{
    child_job *j = p;
    struct sigaction dfl = {.sa_handler = SIG_DFL}, ign = {.sa_handler = SIG_IGN};
    int outlive = j->flags & SL_CHILD_OUTLIVE_TERM;
    /* Not SIGKILL, SIGSTOP and glibc's internal signals (between 31 and
     * SIGRTMIN), which refuse: a failing call would set errno, which is
     * the caller's (see above). */
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP && (s < 32 || s >= SIGRTMIN))
            sigaction(s, outlive && (s == SIGTERM || s == SIGINT || s == SIGHUP) ? &ign : &dfl,
                      NULL);
    if (j->old_root >= 0)
        return_to_root(j->old_root);
    if (set_stdio(j->in_fd, j->out_fd, j->err_fd) == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(j->path, j->argv, j->envp);
    }
    j->exec_error = errno ? errno : EIO;
    syscall(SYS_exit, 127);
    return 127;
}

/* The keeper's end. A keeper that is a copy of the process ends by SIGKILL:
 * valgrind runs glibc's __libc_freeres in a process that exits, which
 * flushes the copy's stdio buffers, so the application's buffered output
 * would come out twice. */
static void keeper_end(child_job *j)
{
    atomic_store(&j->keeper_done, 1);
    if (keeper_is_copy)
        syscall(SYS_kill, syscall(SYS_getpid), SIGKILL);
    syscall(SYS_exit, 0);
}

static int keeper_main(void *p)
{
    child_job *j = p;
    /* The helper's end must reach us whatever the application did with
     * SIGCHLD (SIG_IGN or SA_NOCLDWAIT would reap it before we can). */
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigaction(SIGCHLD, &dfl, NULL);
    char *helper_stack_top = (char *)j + SL_CHILD_MAP / 2;
    pid_t h = clone(helper_main, helper_stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, j);
    if (h < 0) {
        atomic_store(&j->state, -(errno ? errno : EAGAIN));
        keeper_end(j);
    }
    int st = 0;
    if (j->exec_error) {
        waitpid(h, &st, __WALL);
        atomic_store(&j->state, -j->exec_error);
        keeper_end(j);
    }
    atomic_store(&j->helper, h);
    atomic_store(&j->state, 1);
    siginfo_t ended;
    while (waitid(P_PID, (id_t)h, &ended, WEXITED | WNOWAIT | __WALL) < 0 && errno == EINTR)
        ;
    atomic_store(&j->reaping, 1);
    while (atomic_load(&j->killing))
        sched_yield();
    while (waitpid(h, &st, __WALL) < 0 && errno == EINTR)
        ;
    atomic_store(&j->status, st);
    keeper_end(j);
    return 0;
}

/* Two runtimes cannot follow a keeper that shares our memory, so the
 * keeper is a copy of the process there (clone without CLONE_VM, still
 * without exit signal), and the job lives in a shared mapping so that the
 * copy's answers reach us:
 * - valgrind runs a memory-sharing clone child only as a thread
 *   (CLONE_THREAD and the rest); a bare CLONE_VM makes it stop the whole
 *   process ("Valgrind does not support general clone()"). Seen once, at
 *   load: its preload objects are loaded before the shim's constructors;
 * - ThreadSanitizer (a build of the shim with -fsanitize=thread, for the
 *   tests): its per-thread state is found through the thread pointer, which
 *   a memory-sharing keeper shares with the caller, so the two would use
 *   one state at once (the keeper died: "No child processes"). */

static int find_valgrind(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *n = info->dlpi_name;
    for (; n && *n; n++)
        if (*n == 'v' && strncmp(n, "vgpreload_core", 14) == 0)
            return 1;
    return 0;
}

static void keeper_kind_at_load(void)
{
    static int done;
    if (done)
        return;
    done = 1;
#ifdef __SANITIZE_THREAD__
    keeper_is_copy = 1;
#else
    keeper_is_copy = dl_iterate_phdr(find_valgrind, NULL) == 1;
#endif
}

void *sl_child_map(void)
{
    /* Shared, not private: the same to a keeper that shares our memory,
     * and what a keeper that is a copy (valgrind) writes its answers to. */
    void *p = mmap(NULL, SL_CHILD_MAP, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void sl_child_unmap(void *map)
{
    if (!map)
        return;
#ifdef __SANITIZE_ADDRESS__
    /* A keeper sharing our memory ran on it: its frames' redzones would
     * stay in ASan's shadow for whatever is mapped there next. */
    ASAN_UNPOISON_MEMORY_REGION(map, SL_CHILD_MAP);
#endif
    munmap(map, SL_CHILD_MAP);
}

static pid_t wait_keeper(pid_t keeper, int *st, int options)
{
    pid_t r;
    do
        r = waitpid(keeper, st, options | __WALL);
    while (r < 0 && errno == EINTR);
    return r;
}

/* ---- what the process may do ---- */

typedef struct seccomp_state {
    long mode, filters;
} seccomp_state;

/* The value of a "Name:\tvalue" line of /proc/self/status (base 10, or 8
 * for Umask), -1 when the line is another. */
static long field_value(const char *line, size_t n, const char *name, int base)
{
    size_t k = strlen(name);
    if (n <= k || memcmp(line, name, k) != 0)
        return -1;
    long v = 0;
    int digits = 0;
    for (size_t i = k; i < n; i++) {
        if (line[i] >= '0' && line[i] < '0' + base) {
            v = v * base + (line[i] - '0');
            digits++;
        } else if (digits) {
            break;
        }
    }
    return digits ? v : -1;
}

/* Fields of /proc/self/status (values[i] -1: not there, or no /proc).
 * Scanned line by line through a small buffer: async-signal-safe, and a
 * long line (Mems_allowed on a large machine) is skipped, not cut. */
static void status_fields(const char *const *names, const int *bases, long *values, int n)
{
    for (int i = 0; i < n; i++)
        values[i] = -1;
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char chunk[256], head[32];
    size_t col = 0;
    ssize_t r;
    while ((r = read(fd, chunk, sizeof chunk)) > 0 || (r < 0 && errno == EINTR))
        for (ssize_t i = 0; i < r; i++) {
            if (chunk[i] != '\n') {
                if (col < sizeof head)
                    head[col] = chunk[i];
                col++;
                continue;
            }
            size_t len = col < sizeof head ? col : sizeof head;
            for (int f = 0; f < n; f++) {
                long v = field_value(head, len, names[f], bases[f]);
                if (v >= 0)
                    values[f] = v;
            }
            col = 0;
        }
    close(fd);
}

/* The seccomp mode and filter count (filters -1: the kernel does not say,
 * before 5.9), else PR_GET_SECCOMP. */
static seccomp_state seccomp_now(void)
{
    static const char *const names[] = {"Seccomp:", "Seccomp_filters:"};
    static const int bases[] = {10, 10};
    long v[2];
    status_fields(names, bases, v, 2);
    seccomp_state s = {v[0], v[1]};
    if (s.mode < 0) {   /* no /proc (a chroot, a container without it) */
        int m = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
        s.mode = m > 0 ? m : 0;
    }
    return s;
}

long sl_proc_umask(void)
{
    static const char *const names[] = {"Umask:"};
    static const int bases[] = {8};
    long v;
    int saved = errno;
    status_fields(names, bases, &v, 1);
    errno = saved;
    return v;
}

void sl_seccomp_read(long *mode, long *filters)
{
    int saved = errno;
    seccomp_state s = seccomp_now();
    errno = saved;
    *mode = s.mode;
    *filters = s.filters;
}

static seccomp_state at_init = {-1, -1};

void sl_sandbox_note(void)
{
    int saved = errno;
    if (at_init.mode < 0)
        at_init = seccomp_now();
    errno = saved;
}

int sl_sandbox_since_init(void)
{
    if (at_init.mode < 0)
        return 0;       /* never noted: no Init, nothing to compare */
    int saved = errno;
    seccomp_state now = seccomp_now();
    errno = saved;
    if (now.mode > at_init.mode)
        return 1;
    return now.filters >= 0 && at_init.filters >= 0 && now.filters > at_init.filters;
}

int sl_child_start(sl_child *c, void *map, const char *path, char *const argv[],
                   char *const envp[], int in_fd, int out_fd, int err_fd, double timeout_s,
                   int flags)
{
    c->map = map;
    c->keeper = -1;
    c->host = -1;
    if (sl_sandbox_since_init())
        return -SL_ESANDBOX;
    /* Under `scope-likwid run`, run starts it (spawn_host.c); a helper that
     * fills a held result (in_fd) is never run's: the file is the
     * application's to hand on. */
    int by_host = flags & SL_CHILD_OUTLIVE_TERM || in_fd >= 0
                      ? 0
                      : sl_host_child_start(c, path, argv, envp, out_fd, err_fd, timeout_s);
    if (by_host != 0)
        return by_host < 0 ? by_host : 0;
    int saved = errno;
    child_job *j = map;
    *j = (child_job){.path = path, .argv = argv, .envp = envp, .in_fd = in_fd,
                     .out_fd = out_fd, .err_fd = err_fd, .old_root = sl_anchor_old_root(),
                     .flags = flags};
    sigset_t all, old;
    sigfillset(&all);
    /* No handler of the application may run in the keeper or the helper
     * while they share our memory: they start with every signal blocked. */
    sigprocmask(SIG_SETMASK, &all, &old);
    char *keeper_stack_top = (char *)map + SL_CHILD_MAP;
    /* Exit signal 0: no SIGCHLD, invisible to wait() without __WALL. */
    pid_t k = clone(keeper_main, keeper_stack_top, keeper_is_copy ? 0 : CLONE_VM, j);
    int clone_err = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (k < 0) {
        errno = saved;
        return -clone_err;
    }
    c->keeper = k;
    /* The keeper says within moments whether the helper execs. */
    int rc = 0;
    while ((rc = atomic_load(&j->state)) == 0) {
        int st;
        if (wait_keeper(k, &st, WNOHANG) == k) {
            c->keeper = -1;
            rc = atomic_load(&j->state);
            if (rc == 0)
                rc = -ECHILD;
            break;
        }
        struct timespec nap = {0, 100000};
        nanosleep(&nap, NULL);
    }
    if (rc < 0 && c->keeper > 0) {
        int st;
        wait_keeper(k, &st, 0);
        c->keeper = -1;
    }
    errno = saved;
    return rc < 0 ? rc : 0;
}

int sl_child_poll(sl_child *c, int *status, int block)
{
    if (c->host >= 0)
        return sl_host_child_poll(c, status, block);
    if (c->keeper <= 0)
        return -ECHILD;
    int st;
    pid_t r = wait_keeper(c->keeper, &st, block ? 0 : WNOHANG);
    if (r == 0)
        return 0;
    if (r < 0)
        return -errno;
    c->keeper = -1;
    /* The keeper ends by itself only after the helper: its status is there.
     * A keeper killed from outside gives its own. */
    child_job *j = c->map;
    *status = atomic_load(&j->keeper_done) ? atomic_load(&j->status) : st;
    return 1;
}

void sl_child_kill(sl_child *c)
{
    if (c->host >= 0) {
        sl_host_child_kill(c);
        return;
    }
    child_job *j = c->map;
    pid_t h = atomic_load(&j->helper);
    if (c->keeper <= 0 || h <= 0)
        return;
    atomic_store(&j->killing, 1);
    if (!atomic_load(&j->reaping))
        kill(h, SIGKILL);   /* not reaped yet: h is still the helper (maybe a zombie) */
    atomic_store(&j->killing, 0);
}

int sl_child_pidfd(const sl_child *c)
{
    /* the host's connection: readable once it says the helper ended */
    if (c->host >= 0) {
        int saved = errno;
        int fd = fcntl(c->host, F_DUPFD_CLOEXEC, 3);
        errno = saved;
        return fd;
    }
    /* Not under valgrind, which does not know pidfd_open and says so on
     * the application's stderr. */
    if (c->keeper <= 0 || keeper_is_copy)
        return -1;
    int saved = errno;
    int fd = (int)syscall(SYS_pidfd_open, c->keeper, 0);
    errno = saved;
    return fd;
}

/* ---- the helper's end, not its pipes' EOF ---- */

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
        w->ended = atomic_load(&((child_job *)w->c->map)->keeper_done);
    return 0;
}

void sl_child_watch_end(sl_child_watch *w)
{
    if (w->pidfd >= 0)
        close(w->pidfd);
    w->pidfd = -1;
}

/* ---- deadlines that do not count stopped time ---- */

/* Longest wait between two looks at the clock, and the gap above which a
 * step counts as the process having been stopped (SIGSTOP, ^Z, a batch
 * system's suspend) or not run at all: such a step counts as one slice. */
#define SLICE_NS 100000000LL
#define STOPPED_NS 1000000000LL

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void sl_deadline_start(sl_deadline *d, double seconds)
{
    d->left_ns = seconds > 0 ? (int64_t)(seconds * 1e9) : 0;
    d->last_ns = mono_ns();
}

int sl_deadline_ms(sl_deadline *d)
{
    int64_t now = mono_ns();
    int64_t step = now - d->last_ns;
    d->last_ns = now;
    if (step > STOPPED_NS)
        step = SLICE_NS;
    if (step > 0)
        d->left_ns -= step;
    if (d->left_ns <= 0)
        return 0;
    int64_t next = d->left_ns < SLICE_NS ? d->left_ns : SLICE_NS;
    return (int)((next + 999999) / 1000000);
}
