/* The application side of the fault-injection suite: one small program,
 * built against the real LIKWID headers and library (the simulated LIKWID
 * replaces the library at run time through LD_LIBRARY_PATH), that misbehaves
 * in the way argv[1] names. Its stdout is deterministic so that a run with
 * the shim can be compared byte for byte with a run without it.
 *
 *   fault_app MODE
 *
 * Every mode calls likwid_markerInit and times "work" (main thread, 3 calls)
 * unless said otherwise. Environment:
 *   FAULT_SWAP_MARKER=PATH  after Init, point LIKWID_FILEPATH at PATH: LIKWID
 *                           (read at Init) writes its file where it always
 *                           does, the shim (reads it at Close) finds PATH
 *   FAULT_SYNC_DIR=DIR      (mode race) meet the other process there first */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <likwid-marker.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;
static volatile uintptr_t sink_null;     /* 0: a crash the compiler cannot see coming */

static void work(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)i * 0.5;
    sink = s;
}

static void work_region(const char *tag, int calls)
{
    for (int i = 0; i < calls; i++) {
        LIKWID_MARKER_START(tag);
        work(20000);
        LIKWID_MARKER_STOP(tag);
    }
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void init(void)
{
    LIKWID_MARKER_INIT;
    const char *swap = getenv("FAULT_SWAP_MARKER");
    if (swap)
        setenv("LIKWID_FILEPATH", swap, 1);
}

/* ---- threads still inside a region at Close ---- */

static pthread_barrier_t inside;
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open;

static void *inside_thread(void *arg)
{
    (void)arg;
    LIKWID_MARKER_THREADINIT;
    LIKWID_MARKER_START("busy");
    pthread_barrier_wait(&inside);
    pthread_mutex_lock(&gate_lock);
    while (!gate_open)
        pthread_cond_wait(&gate_cond, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
    LIKWID_MARKER_STOP("busy");     /* after Close: must be harmless */
    return NULL;
}

static int close_threads_inside(void)
{
    enum { N = 3 };
    pthread_t t[N];
    pthread_barrier_init(&inside, NULL, N + 1);
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], NULL, inside_thread, NULL);
    pthread_barrier_wait(&inside);
    LIKWID_MARKER_CLOSE;
    pthread_mutex_lock(&gate_lock);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&gate_lock);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    printf("fault_app: %d threads stopped after Close\n", N);
    return 0;
}

/* ---- more threads than CPUs ---- */

static pthread_mutex_t serial = PTHREAD_MUTEX_INITIALIZER;

static void *many_thread(void *arg)
{
    (void)arg;
    LIKWID_MARKER_THREADINIT;
    for (int i = 0; i < 5; i++) {
        /* One at a time: LIKWID (real and simulated) shares a CPU's slot
         * between the threads on it, and overlapping calls would make its
         * warnings depend on scheduling. */
        pthread_mutex_lock(&serial);
        LIKWID_MARKER_START("par");
        work(5000);
        LIKWID_MARKER_STOP("par");
        pthread_mutex_unlock(&serial);
    }
    return NULL;
}

static int many_threads(void)
{
    enum { N = 16 };
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], NULL, many_thread, NULL);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    LIKWID_MARKER_CLOSE;
    printf("fault_app: %d threads done\n", N);
    return 0;
}

/* ---- children that keep calling markers ---- */

static int fork_markers(void)
{
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        work_region("child", 4);
        LIKWID_MARKER_CLOSE;
        exit(0);    /* the exit hooks run in the child too */
    }
    int st;
    waitpid(pid, &st, 0);
    printf("fault_app: child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    work_region("parent", 2);
    /* A second child still inside a region while the parent closes. */
    int p[2];
    if (pipe(p) != 0)
        return 1;
    pid_t pid2 = fork();
    if (pid2 == 0) {
        close(p[1]);
        LIKWID_MARKER_START("child2");
        char c;
        while (read(p[0], &c, 1) < 0 && errno == EINTR)
            ;
        LIKWID_MARKER_STOP("child2");
        _exit(0);
    }
    close(p[0]);
    LIKWID_MARKER_CLOSE;
    close(p[1]);
    waitpid(pid2, &st, 0);
    printf("fault_app: second child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}

/* ---- SIGCHLD ---- */

static volatile sig_atomic_t reaped;

static void reap_all(int sig)
{
    (void)sig;
    int saved = errno;
    while (waitpid(-1, NULL, WNOHANG) > 0)
        reaped++;
    errno = saved;
}

static int sigchld_mode(int ignore)
{
    if (ignore) {
        signal(SIGCHLD, SIG_IGN);
    } else {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = reap_all;   /* no SA_RESTART: the shim sees EINTR */
        sigemptyset(&sa.sa_mask);
        sigaction(SIGCHLD, &sa, NULL);
    }
    /* A child of its own, so the handler has work in both runs. */
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    sleep_ms(50);
    LIKWID_MARKER_CLOSE;
    printf("fault_app: SIGCHLD %s\n", ignore ? "ignored" : "handled");
    return 0;
}

/* ---- signals blocked in the closing thread ---- */

static int block_signals(void)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    LIKWID_MARKER_CLOSE;
    printf("fault_app: closed with every signal blocked\n");
    return 0;
}

/* ---- nearly no descriptors left ---- */

static int fd_limit(int leave)
{
    int fds[65536], n = 0;
    for (;;) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd < 0)
            break;
        if (n == (int)(sizeof fds / sizeof fds[0])) {
            close(fd);
            break;
        }
        fds[n++] = fd;
    }
    for (int i = 0; i < leave && n > 0; i++)
        close(fds[--n]);
    LIKWID_MARKER_CLOSE;
    /* The shim must have given back what it took. */
    int again = open("/dev/null", O_RDONLY), got = 0;
    while (again >= 0) {
        got++;
        fds[n++] = again;
        again = got < leave ? open("/dev/null", O_RDONLY) : -1;
    }
    for (int i = 0; i < n; i++)
        close(fds[i]);
    printf("fault_app: %d of %d descriptors free after Close\n", got, leave);
    return 0;
}

/* ---- descriptors a helper must not inherit ---- */

static int open_fds(void)
{
    int p[2], sv[2];
    /* Deliberately without CLOEXEC, as careless applications do. */
    if (open("/dev/null", O_RDONLY) < 0 || pipe(p) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("fault_app");
        return 1;
    }
    LIKWID_MARKER_CLOSE;
    printf("fault_app: closed with extra descriptors open\n");
    return 0;
}

/* ---- tags never started ---- */

static int unknown_tags(void)
{
    int nr = 4, count = 7;
    double ev[4] = {1, 2, 3, 4}, time = 9;
    printf("stop: %d\n", LIKWID_MARKER_STOP("never"));
    printf("reset: %d\n", likwid_markerResetRegion("never"));
    LIKWID_MARKER_GET("never", &nr, ev, &time, &count);
    printf("get: nr=%d time=%g count=%d\n", nr, time, count);
    printf("stop-again: %d\n", LIKWID_MARKER_STOP("work"));   /* started, not open */
    LIKWID_MARKER_CLOSE;
    return 0;
}

/* ---- many / long tags ---- */

static int many_tags(int n)
{
    char tag[32];
    for (int i = 0; i < n; i++) {
        snprintf(tag, sizeof tag, "t%05d", i);
        LIKWID_MARKER_START(tag);
        LIKWID_MARKER_STOP(tag);
    }
    LIKWID_MARKER_CLOSE;
    printf("fault_app: %d tags\n", n);
    return 0;
}

static int long_tags(void)
{
    enum { LEN = 10240 };
    static char tag[LEN + 1];
    for (int k = 0; k < 3; k++) {
        memset(tag, 'a' + k, LEN);
        tag[LEN] = '\0';
        work_region(tag, 2);
    }
    LIKWID_MARKER_CLOSE;
    printf("fault_app: 3 tags of %d bytes\n", LEN);
    return 0;
}

/* ---- Close from an exit handler registered before Init ---- */

static void close_at_exit(void)
{
    LIKWID_MARKER_CLOSE;
    printf("fault_app: closed in an atexit handler\n");
}

/* ---- two Init..Close cycles ---- */

static int two_cycles(void)
{
    LIKWID_MARKER_CLOSE;
    LIKWID_MARKER_INIT;
    work_region("phase2", 2);
    LIKWID_MARKER_CLOSE;
    printf("fault_app: two cycles\n");
    return 0;
}

/* ---- 1000 threads one after the other, then a large allocation ---- */

static void *seq_thread(void *arg)
{
    (void)arg;
    work_region("thr", 2);
    return NULL;
}

static int seq_threads(void)
{
    for (int i = 0; i < 1000; i++) {
        pthread_t t;
        int rc = pthread_create(&t, NULL, seq_thread, NULL);
        if (rc != 0) {
            printf("fault_app: thread %d: %s\n", i, strerror(rc));
            return 1;
        }
        pthread_join(t, NULL);
    }
    /* What the application still has under its address-space limit. */
    size_t big = (size_t)1 << 30;
    char *p = malloc(big);
    printf("fault_app: 1000 threads; 1 GiB %s\n", p ? "allocated" : "NOT allocated");
    free(p);
    LIKWID_MARKER_CLOSE;
    return p ? 0 : 1;
}

/* ---- stderr closed, a data file on fd 2 ---- */

static int fd2_data(void)
{
    close(2);
    int fd = open("data.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd != 2) {
        printf("fault_app: data file got fd %d, not 2\n", fd);
        return 1;
    }
    static const char line[] = "application data\n";
    if (write(2, line, sizeof line - 1) < 0)
        return 1;
    LIKWID_MARKER_CLOSE;
    if (write(2, line, sizeof line - 1) < 0)
        return 1;
    printf("fault_app: data on fd 2\n");
    return 0;
}

/* ---- ended inside a region: signals, crashes ---- */

static volatile sig_atomic_t got_term;

static void on_term(int sig)
{
    (void)sig;
    got_term = 1;
}

static void handle_term(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
}

/* Starts "inside" and ends the process there as mode says. */
static int die_in_region(const char *m)
{
    printf("fault_app: ending inside a region (%s)\n", m);
    fflush(stdout);
    LIKWID_MARKER_START("inside");
    if (strcmp(m, "term-in-region") == 0)
        raise(SIGTERM);
    else if (strcmp(m, "kill-in-region") == 0)
        raise(SIGKILL);
    else if (strcmp(m, "segv-in-region") == 0)
        *(volatile int *)(uintptr_t)sink_null = 1;
    else if (strcmp(m, "abort-in-region") == 0)
        abort();
    else if (strcmp(m, "wait-in-region") == 0) {
        /* Until killed from outside (FAULT_SYNC_DIR/ready tells it is there). */
        const char *dir = getenv("FAULT_SYNC_DIR");
        if (dir) {
            char path[4096];
            snprintf(path, sizeof path, "%s/ready", dir);
            int fd = open(path, O_WRONLY | O_CREAT, 0644);
            if (fd >= 0)
                close(fd);
        }
        for (;;)
            sleep_ms(1000);
    }
    return 9;
}

/* A SIGTERM handler of the application's own, installed before or after
 * Init: it runs, the application goes on, times more and closes. */
static int term_handled(void)
{
    LIKWID_MARKER_START("inside");
    raise(SIGTERM);
    LIKWID_MARKER_STOP("inside");
    work_region("after", 2);
    LIKWID_MARKER_CLOSE;
    printf("fault_app: SIGTERM handled: %d\n", (int)got_term);
    return 0;
}

/* ---- two processes at once ---- */

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strncmp(e->d_name, "ready.", 6) == 0;
    closedir(d);
    return n;
}

static int race(void)
{
    const char *dir = getenv("FAULT_SYNC_DIR");
    if (dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/ready.%ld", dir, (long)getpid());
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        if (fd >= 0)
            close(fd);
        for (int i = 0; i < 500 && count_entries(dir) < 2; i++)
            sleep_ms(10);
    }
    LIKWID_MARKER_CLOSE;
    printf("fault_app: race done\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fault_app MODE\n");
        return 2;
    }
    const char *m = argv[1];
    if (strcmp(m, "close-atexit") == 0)
        atexit(close_at_exit);      /* before Init: runs after the shim's atexit would */
    if (strcmp(m, "term-handler-before") == 0)
        handle_term();
    init();
    if (strcmp(m, "term-handler-after") == 0)
        handle_term();
    if (strcmp(m, "close-threads-inside") == 0)
        return close_threads_inside();
    if (strcmp(m, "many-threads") == 0)
        return many_threads();
    if (strcmp(m, "many-tags") == 0)
        return many_tags(10000);
    if (strcmp(m, "long-tags") == 0)
        return long_tags();
    work_region("work", 3);
    if (strcmp(m, "basic") == 0) {
        LIKWID_MARKER_CLOSE;
        printf("fault_app: basic done\n");
        return 0;
    }
    if (strcmp(m, "close-twice") == 0) {
        LIKWID_MARKER_CLOSE;
        LIKWID_MARKER_CLOSE;
        printf("fault_app: closed twice\n");
        return 0;
    }
    if (strcmp(m, "no-close") == 0) {
        printf("fault_app: returning without Close\n");
        return 3;
    }
    if (strcmp(m, "fork-markers") == 0)
        return fork_markers();
    if (strcmp(m, "sigchld-ignore") == 0)
        return sigchld_mode(1);
    if (strcmp(m, "sigchld-reap") == 0)
        return sigchld_mode(0);
    if (strcmp(m, "block-signals") == 0)
        return block_signals();
    if (strcmp(m, "fd-limit") == 0)
        return fd_limit(2);
    if (strcmp(m, "open-fds") == 0)
        return open_fds();
    if (strcmp(m, "unknown-tags") == 0)
        return unknown_tags();
    if (strcmp(m, "race") == 0)
        return race();
    if (strcmp(m, "close-atexit") == 0) {
        printf("fault_app: returning, Close left to atexit\n");
        return 0;
    }
    if (strcmp(m, "two-cycles") == 0)
        return two_cycles();
    if (strcmp(m, "seq-threads") == 0)
        return seq_threads();
    if (strcmp(m, "fd2-data") == 0)
        return fd2_data();
    if (strstr(m, "-in-region"))
        return die_in_region(m);
    if (strncmp(m, "term-handler-", 13) == 0)
        return term_handled();
    fprintf(stderr, "fault_app: unknown mode '%s'\n", m);
    return 2;
}
