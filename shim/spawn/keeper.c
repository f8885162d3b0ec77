/* The helper process itself (spawn.h). The application must get
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
#include "spawn.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

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

static int keeper_is_copy;      /* see sl_keeper_kind_note */

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
        /* libc's execve, not the shim's wrapper (the helper is not the
         * application's process: nothing of its run is delivered here). */
        sl_path_env_fn real_execve = sl_real_exec()->execve;
        if (real_execve)
            real_execve(j->path, j->argv, j->envp);
        else
            errno = ENOSYS;
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

void sl_keeper_kind_note(void)
{
    static int done;
    if (done)
        return;
    done = 1;
#ifdef __SANITIZE_THREAD__
    keeper_is_copy = 1;
#else
    keeper_is_copy = sl_loaded_valgrind();
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

int sl_child_start(sl_child *c, void *map, const char *path, char *const argv[],
                   char *const envp[], int in_fd, int out_fd, int err_fd, double timeout_s,
                   int flags)
{
    c->map = map;
    c->keeper = -1;
    c->host = -1;
    if (sl_sandbox_since_init())
        return -SL_ESANDBOX;
    /* Under `scope-likwid run`, run starts it (host.c); a helper that
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

/* Whether the keeper of c has ended (its shared state says so). */
int sl_child_ended(const sl_child *c)
{
    return atomic_load(&((child_job *)c->map)->keeper_done);
}

/* The steps taken again by the first Init: a library that calls
 * likwid_markerInit in its own constructor may run before ours (the loader
 * runs constructors in dependency order, and nothing orders an
 * application's library after a preloaded one). Each step is done once. */
void sl_spawn_at_load(void)
{
    sl_self_resolve();          /* the shim's own file, before any chdir */
    sl_keeper_kind_note();      /* valgrind or TSan: the keeper is a copy */
}
