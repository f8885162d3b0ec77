/* The application side of the memory and resource cases (mem.sh): a
 * program that lives the way real HPC codes do with their threads, memory
 * and descriptors. Built against the real LIKWID headers and library (the
 * simulated LIKWID replaces it through LD_LIBRARY_PATH); stdout is
 * deterministic so that runs with and without the shim compare byte for
 * byte.
 *
 *   mem_app MODE
 *
 * Modes (each calls likwid_markerInit and times "work", main thread, 3
 * calls, first):
 *   plain         Close (main thread)
 *   small-close   Close from a thread with a 64 KiB stack
 *   small-exit    exit(0) from a thread with a 64 KiB stack, no Close
 *   mlockall      mlockall(MCL_CURRENT | MCL_FUTURE), then 64 threads time
 *                 "thr" 15 times each, Close; prints whether VmLck stayed
 *                 under MEM_APP_LOCK_MIB (default 256) MiB
 *   threads-kill  1024 threads alive at once, 15 calls of "thr" each, then
 *                 SIGKILL (MEM_APP_THREADS overrides the number)
 *   fd-full-kill / fd-full-close
 *                 every descriptor taken after Init (RLIMIT_NOFILE
 *                 reached), then 1200 calls of "many" in 400 threads, 50
 *                 at a time (the journal grows by several pieces), then
 *                 SIGKILL / Close
 *   nofile3-close RLIMIT_NOFILE lowered to 3 (0, 1, 2 open) before Close
 *   fork-fds      a forked child lists its descriptors above 2 (it has
 *                 none of its own), then the parent closes */
#include <errno.h>
#include <fcntl.h>
#include <likwid-marker.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile double sink;

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
        work(2000);
        LIKWID_MARKER_STOP(tag);
    }
}

static int spawn_small(void *(*fn)(void *))
{
    pthread_attr_t a;
    pthread_t t;
    pthread_attr_init(&a);
    if (pthread_attr_setstacksize(&a, 64 * 1024) != 0 || pthread_create(&t, &a, fn, NULL) != 0) {
        printf("mem_app: no 64 KiB thread\n");
        return 1;
    }
    pthread_join(t, NULL);
    pthread_attr_destroy(&a);
    return 0;
}

static void *close_small(void *arg)
{
    (void)arg;
    LIKWID_MARKER_CLOSE;
    printf("mem_app: closed from a 64 KiB stack\n");
    fflush(stdout);
    return NULL;
}

static void *exit_small(void *arg)
{
    (void)arg;
    printf("mem_app: exit from a 64 KiB stack\n");
    fflush(stdout);
    exit(0);
}

/* ---- many threads alive at once ---- */

static pthread_barrier_t all_done;
static int hold_forever;

static void *thr(void *arg)
{
    (void)arg;
    work_region("thr", 15);
    pthread_barrier_wait(&all_done);
    while (hold_forever)
        pause();
    return NULL;
}

static int threads(int n, int then_kill)
{
    pthread_t *t = calloc((size_t)n, sizeof *t);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 64 * 1024);
    pthread_barrier_init(&all_done, NULL, (unsigned)n + 1);
    hold_forever = then_kill;
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], &a, thr, NULL) != 0) {
            printf("mem_app: only %d threads\n", i);
            fflush(stdout);
            _exit(3);
        }
    pthread_barrier_wait(&all_done);
    printf("mem_app: %d threads timed their calls\n", n);
    fflush(stdout);
    if (then_kill)
        raise(SIGKILL);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    free(t);
    return 0;
}

static long vm_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0)
            v = strtol(line + n, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

static int locked(void)
{
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
        printf("mem_app: mlockall: %s\n", strerror(errno));
        return 1;
    }
    threads(64, 0);
    const char *lim = getenv("MEM_APP_LOCK_MIB");
    long limit = (lim ? atol(lim) : 256) * 1024, lck = vm_kib("VmLck:");
    LIKWID_MARKER_CLOSE;
    long after = vm_kib("VmLck:");
    printf("mem_app: locked memory %s %ld MiB\n", lck <= limit && after <= limit ? "under" : "OVER",
           limit / 1024);
    if (lck > limit || after > limit)
        fprintf(stderr, "mem_app: VmLck %ld kB before Close, %ld kB after\n", lck, after);
    return 0;
}

/* ---- no descriptor left ---- */

static void *many(void *arg)
{
    (void)arg;
    work_region("many", 3);
    return NULL;
}

static int fd_full(int then_kill)
{
    int n = 0;
    while (open("/dev/null", O_RDONLY) >= 0)
        n++;
    pthread_t t[50];
    for (int round = 0; round < 8; round++) {
        for (int i = 0; i < 50; i++)
            if (pthread_create(&t[i], NULL, many, NULL) != 0)
                return 4;
        for (int i = 0; i < 50; i++)
            pthread_join(t[i], NULL);
    }
    printf("mem_app: 1200 calls with every descriptor taken (%s)\n", n > 0 ? "yes" : "none were free");
    fflush(stdout);
    if (then_kill)
        raise(SIGKILL);
    LIKWID_MARKER_CLOSE;
    return 0;
}

static int nofile3(void)
{
    struct rlimit rl = {3, 3};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 5;
    LIKWID_MARKER_CLOSE;
    printf("mem_app: closed with RLIMIT_NOFILE 3\n");
    return 0;
}

static int fork_fds(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        DIR *d = opendir("/proc/self/fd");
        int n = 0;
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (atoi(e->d_name) > 2 && atoi(e->d_name) != dirfd(d))
                n++;
        if (d)
            closedir(d);
        printf("mem_app: the child has %d descriptors above 2\n", n);
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    LIKWID_MARKER_CLOSE;
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    LIKWID_MARKER_INIT;
    work_region("work", 3);
    if (strcmp(mode, "plain") == 0) {
        LIKWID_MARKER_CLOSE;
        return 0;
    }
    if (strcmp(mode, "small-close") == 0)
        return spawn_small(close_small);
    if (strcmp(mode, "small-exit") == 0)
        return spawn_small(exit_small);
    if (strcmp(mode, "mlockall") == 0)
        return locked();
    if (strcmp(mode, "threads-kill") == 0) {
        const char *n = getenv("MEM_APP_THREADS");
        return threads(n ? atoi(n) : 1024, 1);
    }
    if (strcmp(mode, "fd-full-kill") == 0)
        return fd_full(1);
    if (strcmp(mode, "fd-full-close") == 0)
        return fd_full(0);
    if (strcmp(mode, "nofile3-close") == 0)
        return nofile3();
    if (strcmp(mode, "fork-fds") == 0)
        return fork_fds();
    fprintf(stderr, "mem_app: unknown mode '%s'\n", mode);
    return 2;
}
