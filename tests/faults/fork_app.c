/* Processes forked after likwid_markerInit (fork.sh): each mode's stdout is
 * deterministic (the parent's; children print nothing), so a run with the
 * shim can be compared byte for byte with one without it.
 *
 *   fork_app daemon DONE   times "parent" once, daemon(0, 0) (the parent
 *                          _exits); the child waits to be reparented, times
 *                          "child" 3 times, Closes and creates DONE
 *   fork_app workers       times "main" once, forks 3 workers that time
 *                          "worker" twice: the first two Close and exit, the
 *                          third exits without Close; the parent waits for
 *                          them and Closes
 *   fork_app keep DONE     times "parent" twice, forks a child that times
 *                          "child" 5 times while the parent times "parent"
 *                          once more and _exits without Close; the child
 *                          then waits to be reparented, Closes and creates
 *                          DONE
 *   fork_app killed        times "main" once, forks a child that times
 *                          "child" twice and is killed (SIGKILL); the
 *                          parent waits for it and Closes */
#include <errno.h>
#include <fcntl.h>
#include <likwid-marker.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static void work_region(const char *tag, int calls)
{
    for (int i = 0; i < calls; i++) {
        LIKWID_MARKER_START(tag);
        double s = 0;
        for (int k = 0; k < 20000; k++)
            s += (double)k * 0.5;
        sink = s;
        LIKWID_MARKER_STOP(tag);
    }
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* A daemon's work outlives its parent: wait (at most 20 s) until the
 * parent has ended and this process was reparented. */
static void await_orphan(pid_t parent)
{
    for (int i = 0; i < 2000 && getppid() == parent; i++)
        sleep_ms(10);
}

/* DONE in the directory fork_app started in (a daemon changes to /). */
static char done_at[4096];

static void done(const char *path)
{
    (void)path;
    int fd = open(done_at, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

static int daemon_mode(const char *done_path)
{
    work_region("parent", 1);
    printf("fork_app: daemon started\n");
    fflush(stdout);
    pid_t parent = getpid();
    if (daemon(0, 0) != 0) {
        perror("daemon");
        return 1;
    }
    await_orphan(parent);
    work_region("child", 3);
    LIKWID_MARKER_CLOSE;
    done(done_path);
    return 0;
}

static int workers_mode(void)
{
    work_region("main", 1);
    fflush(stdout);
    pid_t kids[3];
    for (int i = 0; i < 3; i++) {
        kids[i] = fork();
        if (kids[i] < 0) {
            perror("fork");
            return 1;
        }
        if (kids[i] == 0) {
            work_region("worker", 2);
            if (i < 2)
                LIKWID_MARKER_CLOSE;
            exit(0);
        }
    }
    for (int i = 0; i < 3; i++) {
        int st;
        while (waitpid(kids[i], &st, 0) < 0 && errno == EINTR)
            ;
        printf("fork_app: worker %d exited %d\n", i, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    LIKWID_MARKER_CLOSE;
    printf("fork_app: workers done\n");
    return 0;
}

static int keep_mode(const char *done_path)
{
    work_region("parent", 2);
    fflush(stdout);
    int go[2];
    if (pipe(go) != 0)
        return 1;
    pid_t parent = getpid();
    pid_t kid = fork();
    if (kid < 0) {
        perror("fork");
        return 1;
    }
    if (kid == 0) {
        close(go[0]);
        work_region("child", 5);
        close(go[1]);   /* the parent goes on once the child has timed */
        await_orphan(parent);
        LIKWID_MARKER_CLOSE;
        done(done_path);
        _exit(0);
    }
    close(go[1]);
    char c;
    while (read(go[0], &c, 1) < 0 && errno == EINTR)
        ;
    work_region("parent", 1);
    printf("fork_app: parent ends with _exit\n");
    fflush(stdout);
    _exit(0);
}

static int killed_mode(void)
{
    work_region("main", 1);
    fflush(stdout);
    pid_t kid = fork();
    if (kid < 0) {
        perror("fork");
        return 1;
    }
    if (kid == 0) {
        work_region("child", 2);
        kill(getpid(), SIGKILL);
        _exit(1);
    }
    int st;
    while (waitpid(kid, &st, 0) < 0 && errno == EINTR)
        ;
    printf("fork_app: child killed by signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    LIKWID_MARKER_CLOSE;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fork_app daemon DONE | workers | keep DONE | killed\n");
        return 2;
    }
    char cwd[2048];
    if (argc == 3 && getcwd(cwd, sizeof cwd))
        snprintf(done_at, sizeof done_at, "%s/%s", cwd, argv[2]);
    LIKWID_MARKER_INIT;
    if (strcmp(argv[1], "daemon") == 0 && argc == 3)
        return daemon_mode(argv[2]);
    if (strcmp(argv[1], "workers") == 0)
        return workers_mode();
    if (strcmp(argv[1], "keep") == 0 && argc == 3)
        return keep_mode(argv[2]);
    if (strcmp(argv[1], "killed") == 0)
        return killed_mode();
    fprintf(stderr, "fork_app: unknown mode %s\n", argv[1]);
    return 2;
}
