/* The application side of the fault cases of what services, runtimes and
 * libraries do around the markers (issue 27): built against the real LIKWID
 * headers, deterministic stdout, the same run with and without the shim.
 * What a run did that the test must compare with the result (how many
 * calls a signal handler made) goes to ./counts, never to stdout.
 *
 *   harm_app MODE [ARG]
 *
 *   sigalrm N     a SIGALRM handler (setitimer every 100 us, and a thread
 *                 that sends main SIGALRM every few us) times its own region
 *                 "tick" on the thread it interrupts, while main times N new
 *                 tags "step-I" (one call each), "loop" around each and 100
 *                 calls of "inner" inside each; ./counts gets "tick CALLS"
 *   fsize N       after Init, RLIMIT_FSIZE lowered to 1.5 MiB (the journal's
 *                 first pieces fit, its later ones not); N calls of "req"
 *                 kept (SCOPE_LIKWID_MAX_CALLS set by the test); the limit
 *                 raised again before Close
 *   longtag N     N pairs of one 1 MiB tag; ./counts gets the loop's CPU
 *                 time in ms
 *   churn N       N short-lived threads one after another, each timing
 *                 "req" once; ./counts gets the peak RSS growth and the
 *                 journal's disk space before Close, in KiB
 *   cycles N MS [exec]  a library routine wrapped in Init..Close: N
 *                 cycles of Init, "lib" timed once, Close, MS ms apart;
 *                 ./counts gets the wall time of the N cycles in ms
 *                 (wall_ms) and of those after the first (later_ms: the
 *                 first has LIKWID start its timer); with
 *                 "exec", the program then execs /bin/true; with "fork",
 *                 it forks a child that times "child" in its own
 *                 Init..Close and exits, waits for it, and returns; with
 *                 "kill", it then ends by SIGKILL; with "open", it then
 *                 calls Init and times "lib" once more, and returns
 *                 without Close; with "killin" or "termin", it then
 *                 calls Init, times "inside" 4 times and ends by
 *                 SIGKILL or SIGTERM inside that cycle */
#include <likwid-marker.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t ticks;


static void on_alarm(int sig)
{
    (void)sig;
    LIKWID_MARKER_START("tick");
    LIKWID_MARKER_STOP("tick");
    __atomic_fetch_add(&ticks, 1, __ATOMIC_RELAXED);
}

static int counts(const char *what, long n)
{
    FILE *f = fopen("counts", "a");
    if (!f)
        return 1;
    fprintf(f, "%s %ld\n", what, n);
    return fclose(f) != 0;
}

/* Rings main's SIGALRM every few microseconds besides the timer: the
 * handler must also land inside the shim's rare paths. */
static volatile int ringing = 1;

static void *ringer(void *arg)
{
    pthread_t main_thread = *(pthread_t *)arg;
    struct timespec ts = {0, 2000};
    while (ringing) {
        pthread_kill(main_thread, SIGALRM);
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static int sigalrm(long n)
{
    struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    LIKWID_MARKER_INIT;
    struct itimerval it = {{0, 100}, {0, 100}};
    setitimer(ITIMER_REAL, &it, NULL);
    pthread_t self = pthread_self(), ring;
    /* The timer's SIGALRM is the process's: the ringer starts with it
     * blocked, so that it always interrupts main (a handler on the ringer
     * would be a second thread timing "tick" and counting ticks). */
    sigset_t alrm, old;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &alrm, &old);
    int created = pthread_create(&ring, NULL, ringer, &self);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (created != 0)
        return 1;
    char tag[32];
    for (long i = 0; i < n; i++) {
        snprintf(tag, sizeof tag, "step-%ld", i);
        LIKWID_MARKER_START("loop");
        LIKWID_MARKER_START(tag);
        for (int k = 0; k < 100; k++) {
            LIKWID_MARKER_START("inner");
            LIKWID_MARKER_STOP("inner");
        }
        LIKWID_MARKER_STOP(tag);
        LIKWID_MARKER_STOP("loop");
    }
    ringing = 0;
    pthread_join(ring, NULL);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    LIKWID_MARKER_CLOSE;
    printf("sigalrm: %ld steps\n", n);
    return counts("tick", (long)ticks);
}

static long rss_kib(void)
{
    long kib = -1;
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib;
}

/* The disk space of the shim's journal, found among the open descriptors
 * (0 without one). */
static long journal_kib(void)
{
    long kib = 0;
    char link[64], path[4096];
    for (int fd = 0; fd < 1024; fd++) {
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, path, sizeof path - 1);
        struct stat st;
        if (n > 8 && (path[n] = '\0', strcmp(path + n - 8, ".journal") == 0) && fstat(fd, &st) == 0)
            kib += (long)st.st_blocks / 2;
    }
    return kib;
}

static void *request(void *arg)
{
    (void)arg;
    LIKWID_MARKER_START("req");
    LIKWID_MARKER_STOP("req");
    return NULL;
}

static int churn(long n)
{
    LIKWID_MARKER_INIT;
    long before = rss_kib(), peak = before;
    for (long i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, request, NULL) != 0 || pthread_join(t, NULL) != 0)
            return 1;
        if (i % 1000 == 0) {
            long r = rss_kib();
            peak = r > peak ? r : peak;
        }
    }
    long after = rss_kib();
    peak = after > peak ? after : peak;
    long journal = journal_kib();
    LIKWID_MARKER_CLOSE;
    printf("churn: %ld threads\n", n);
    return counts("rss_growth_kib", peak - before) || counts("journal_kib", journal);
}

static int fsize(long n)
{
    LIKWID_MARKER_INIT;
    struct rlimit was, low;
    getrlimit(RLIMIT_FSIZE, &was);
    low = was;
    low.rlim_cur = 3 << 19;
    if (setrlimit(RLIMIT_FSIZE, &low) != 0)
        return 1;
    for (long i = 0; i < n; i++) {
        LIKWID_MARKER_START("req");
        LIKWID_MARKER_STOP("req");
    }
    setrlimit(RLIMIT_FSIZE, &was);
    LIKWID_MARKER_CLOSE;
    printf("fsize: %ld calls\n", n);
    return 0;
}

static int longtag(long n)
{
    size_t len = 1 << 20;
    char *tag = malloc(len + 1);
    if (!tag)
        return 1;
    memset(tag, 't', len);
    tag[len] = '\0';
    LIKWID_MARKER_INIT;
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    for (long i = 0; i < n; i++) {
        LIKWID_MARKER_START(tag);
        LIKWID_MARKER_STOP(tag);
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    LIKWID_MARKER_CLOSE;
    free(tag);
    printf("longtag: %ld pairs\n", n);
    return counts("cpu_ms", (long)((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000));
}

static long ms_between(const struct timespec *a, const struct timespec *b)
{
    return (long)((b->tv_sec - a->tv_sec) * 1000 + (b->tv_nsec - a->tv_nsec) / 1000000);
}

static int cycles(long n, long ms, const char *then)
{
    struct timespec a, first, b, gap = {ms / 1000, (ms % 1000) * 1000000};
    clock_gettime(CLOCK_MONOTONIC, &a);
    first = a;
    for (long i = 0; i < n; i++) {
        LIKWID_MARKER_INIT;
        LIKWID_MARKER_START("lib");
        LIKWID_MARKER_STOP("lib");
        LIKWID_MARKER_CLOSE;
        if (ms > 0)
            nanosleep(&gap, NULL);
        if (i == 0)
            clock_gettime(CLOCK_MONOTONIC, &first);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("cycles: %ld\n", n);
    int rc = counts("wall_ms", ms_between(&a, &b)) | counts("later_ms", ms_between(&first, &b));
    fflush(stdout);
    if (strcmp(then, "exec") == 0) {
        execl("/bin/true", "true", (char *)NULL);
        return 3;
    }
    if (strcmp(then, "kill") == 0)
        raise(SIGKILL);
    if (strcmp(then, "killin") == 0 || strcmp(then, "termin") == 0) {
        LIKWID_MARKER_INIT;
        for (int i = 0; i < 4; i++) {
            LIKWID_MARKER_START("inside");
            LIKWID_MARKER_STOP("inside");
        }
        raise(then[0] == 'k' ? SIGKILL : SIGTERM);
    }
    if (strcmp(then, "open") == 0) {
        LIKWID_MARKER_INIT;
        LIKWID_MARKER_START("lib");
        LIKWID_MARKER_STOP("lib");
    }
    if (strcmp(then, "fork") == 0) {
        pid_t child = fork();
        if (child == 0) {
            LIKWID_MARKER_INIT;
            LIKWID_MARKER_START("child");
            LIKWID_MARKER_STOP("child");
            LIKWID_MARKER_CLOSE;
            exit(0);
        }
        int st = 0;
        if (child < 0 || waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 4;
    }
    return rc;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *arg = argc > 2 ? argv[2] : "";
    if (strcmp(mode, "sigalrm") == 0)
        return sigalrm(atol(arg));
    if (strcmp(mode, "fsize") == 0)
        return fsize(atol(arg));
    if (strcmp(mode, "longtag") == 0)
        return longtag(atol(arg));
    if (strcmp(mode, "churn") == 0)
        return churn(atol(arg));
    if (strcmp(mode, "cycles") == 0)
        return cycles(atol(arg), argc > 3 ? atol(argv[3]) : 0, argc > 4 ? argv[4] : "");
    fprintf(stderr, "usage: harm_app sigalrm N | fsize N | longtag N | churn N | cycles N MS [exec|fork|kill|open|killin|termin]\n");
    return 2;
}
