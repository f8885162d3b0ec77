/* Crash isolation for the reading subcommands (sandbox.h). libhdf5 does not
 * defend itself against every damaged file (docs/RELIABILITY.md): whatever
 * it does on one, the child dies or is killed, and this process prints one
 * line naming the file instead of a partial output. */
#include "sandbox.h"
#include "bool_word.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

/* Under ASan or TSan the address space holds the shadow memory (terabytes,
 * reserved, not used): an address-space limit would stop the tool at start. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SL_SANITIZED 1
#endif
#endif
#ifndef SL_SANITIZED
#define SL_SANITIZED 0
#endif

#define MIB ((size_t)1 << 20)
#define READING_MAX 4096
#define SHARED_SIZE (READING_MAX + sizeof(uint64_t)) /* the path, then begun_ns */

static char *reading;        /* shared with the child: the input being read */
static uint64_t *begun_ns;   /* shared: when the child began it (CLOCK_MONOTONIC), 0: none */
static size_t mem_limit;     /* the child's RLIMIT_AS, 0: none */
static int terminal = -2;    /* the child's way to the terminal, -1: none, -2: not sandboxed */

int sl_sandbox_terminal(void)
{
    if (terminal == -2)
        return isatty(STDERR_FILENO) ? STDERR_FILENO : -1;
    return terminal;
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void sl_sandbox_reading(const char *path)
{
    if (!reading)
        return;
    size_t n = strlen(path);
    if (n >= READING_MAX)
        n = READING_MAX - 1;
    memcpy(reading, path, n);
    reading[n] = '\0';
    __atomic_store_n(begun_ns, now_ns(), __ATOMIC_RELEASE);
}

size_t sl_sandbox_mem_limit(void)
{
    return mem_limit;
}

/* A non-negative number from the environment, or def when unset or bad. */
static double env_num(const char *name, double def)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return def;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    return errno || *end || !(v >= 0) || v > 1e9 ? def : v;
}

/* The input files among the arguments: every existing regular file that is
 * not the value of -o/--output. Their total size scales the limits. */
static size_t inputs(int argc, char **argv, const char **first, int *count)
{
    size_t total = 0;
    *first = NULL;
    *count = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
            i++;
            continue;
        }
        struct stat st;
        if (argv[i][0] == '-' || stat(argv[i], &st) || !S_ISREG(st.st_mode))
            continue;
        if (!*first)
            *first = argv[i];
        ++*count;
        total += (size_t)st.st_size;
    }
    return total;
}

static size_t sat_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static size_t sat_mul(size_t a, size_t b)
{
    return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

static void set_limit(int what, size_t v)
{
    struct rlimit rl = {(rlim_t)v, (rlim_t)v};
    struct rlimit old;
    if (!getrlimit(what, &old) && old.rlim_max != RLIM_INFINITY && old.rlim_max < rl.rlim_max)
        rl.rlim_cur = rl.rlim_max = old.rlim_max; /* never above the hard limit */
    setrlimit(what, &rl);
}

/* Copies everything written to fd (from its start) to out. */
static void pass_on(int fd, int out)
{
    char buf[1 << 16];
    if (lseek(fd, 0, SEEK_SET) < 0)
        return;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return;
            off += w;
        }
    }
}

/* Waits for the child until the deadline (secs 0: none): secs after it
 * began its latest input, or after its start when it began none. A merge
 * of thousands of inputs takes minutes, each input a fraction of a second;
 * an input that gives no answer (a FIFO, a hung file system) is given secs
 * in all. 1 when the child had to be killed. */
static int wait_child(pid_t pid, const sigset_t *chld, double secs, int *status)
{
    uint64_t start = now_ns(), limit = (uint64_t)(secs * 1e9);
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            return 0;
        if (w < 0 && errno != EINTR)
            return 0; /* cannot happen: SIGCHLD is not ignored here */
        if (secs <= 0) {
            sigwaitinfo(chld, NULL);
            continue;
        }
        uint64_t begun = __atomic_load_n(begun_ns, __ATOMIC_ACQUIRE);
        uint64_t end = (begun > start ? begun : start) + limit, now = now_ns();
        if (now >= end) {
            kill(pid, SIGKILL);
            while (waitpid(pid, status, 0) < 0 && errno == EINTR)
                ;
            return 1;
        }
        struct timespec left = {(time_t)((end - now) / 1000000000u),
                                (long)((end - now) % 1000000000u)};
        sigtimedwait(chld, NULL, &left);
    }
}

static int child(sl_sandbox_fn fn, int argc, char **argv, pid_t parent, const sigset_t *old,
                 int out, int err, size_t mem, size_t fsize)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the parent killed (timeout(1)): so is the work */
    if (getppid() != parent)
        _exit(1);
    sigprocmask(SIG_SETMASK, old, NULL);
    set_limit(RLIMIT_CORE, 0);
    if (mem)
        set_limit(RLIMIT_AS, mem);
    if (fsize)
        set_limit(RLIMIT_FSIZE, fsize);
    if (dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
        _exit(1);
    close(out);
    close(err);
    int rc = fn(argc, argv);
    /* Under a sanitizer or valgrind: exit, so that their exit checks run.
     * Otherwise stdio is flushed and the process ends without libhdf5's
     * exit handler, which frees, page by page, what the process is about
     * to drop whole (every file is closed by then: the command's own
     * H5Fclose calls). */
    if (SL_SANITIZED || RUNNING_ON_VALGRIND)
        exit(rc);
    fflush(NULL);
    _exit(rc);
}

int sl_sandbox_run(sl_sandbox_fn fn, int argc, char **argv, int damaged_rc)
{
    char warn[SL_BOOL_WARN_BUF];
    int on = sl_bool_value("SCOPE_LIKWID_SANDBOX", getenv("SCOPE_LIKWID_SANDBOX"), 1, warn);
    if (warn[0])
        fprintf(stderr, "scope-likwid: %s: %s\n", argv[0], warn);
    if (!on)
        return fn(argc, argv);
    const char *first;
    int count;
    size_t total = inputs(argc, argv, &first, &count);
    double secs = env_num("SCOPE_LIKWID_READ_TIMEOUT", 60);
    double mem_mib = env_num("SCOPE_LIKWID_READ_MEMORY", -1);
    size_t mem = mem_mib >= 0 ? (size_t)(mem_mib * (double)MIB)
                              : sat_add(256 * MIB, sat_mul(16, total));
    if (SL_SANITIZED || RUNNING_ON_VALGRIND)
        mem = 0; /* their own address-space use is not the tool's */
    double out_mib = env_num("SCOPE_LIKWID_READ_OUTPUT", -1);
    size_t fsize = out_mib > 0 ? (size_t)(out_mib * (double)MIB)
                               : sat_add(256 * MIB, sat_mul(64, total));

    int out = memfd_create("scope-likwid-stdout", MFD_CLOEXEC);
    int err = memfd_create("scope-likwid-stderr", MFD_CLOEXEC);
    reading = mmap(NULL, SHARED_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (out < 0 || err < 0 || reading == MAP_FAILED) {
        /* no isolation possible: do the work here rather than not at all */
        if (out >= 0)
            close(out);
        if (err >= 0)
            close(err);
        if (reading != MAP_FAILED)
            munmap(reading, SHARED_SIZE);
        reading = NULL;
        return fn(argc, argv);
    }
    reading[0] = '\0';
    begun_ns = (uint64_t *)(void *)(reading + READING_MAX);
    *begun_ns = 0;
    signal(SIGCHLD, SIG_DFL); /* an inherited SIG_IGN would reap the child for us */
    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);
    fflush(NULL);
    /* the terminal the process started on, for the child's progress line
     * (its own stderr is held back until it ends) */
    int tty = isatty(STDERR_FILENO) ? fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3) : -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        mem_limit = mem;
        terminal = tty;
        child(fn, argc, argv, parent, &old, out, err, mem, fsize);
    }
    if (tty >= 0)
        close(tty);
    int status = 0, killed = 0;
    if (pid > 0)
        killed = wait_child(pid, &chld, secs, &status);
    sigprocmask(SIG_SETMASK, &old, NULL);
    int rc;
    if (pid < 0) {
        fprintf(stderr, "scope-likwid: %s: cannot start the reading process: %s\n", argv[0],
                strerror(errno));
        rc = damaged_rc;
    } else if (!killed && WIFEXITED(status)) {
        pass_on(out, STDOUT_FILENO);
        pass_on(err, STDERR_FILENO);
        rc = WEXITSTATUS(status);
    } else {
        /* the file being read when it happened, else the inputs named */
        char what[96];
        int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        if (killed)
            snprintf(what, sizeof what, "no answer in %g s", secs);
        else if (sig == SIGXFSZ)
            snprintf(what, sizeof what, "output larger than %g MiB",
                     out_mib > 0 ? out_mib : (double)(fsize / MIB));
        else
            snprintf(what, sizeof what, "killed by signal %d while reading", sig);
        const char *file = reading[0] ? reading : count == 1 ? first : NULL;
        if (file)
            fprintf(stderr, "scope-likwid: %s: %s: damaged (%s)\n", argv[0], file, what);
        else if (count) {
            /* several inputs, none opened yet: all of them */
            fprintf(stderr, "scope-likwid: %s:", argv[0]);
            for (int i = 1, n = 0; i < argc; i++) {
                struct stat st;
                if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output"))
                    i++;
                else if (argv[i][0] != '-' && !stat(argv[i], &st) && S_ISREG(st.st_mode))
                    fprintf(stderr, "%s %s", n++ ? "," : "", argv[i]);
            }
            fprintf(stderr, ": damaged (%s)\n", what);
        } else /* before any input was opened */
            fprintf(stderr, "scope-likwid: %s: %s\n", argv[0], what);
        rc = damaged_rc;
    }
    close(out);
    close(err);
    munmap(reading, SHARED_SIZE);
    reading = NULL;
    begun_ns = NULL;
    return rc;
}
