/* The application side of the signal and child-process cases: what real
 * codes do with signals and children, against the LIKWID marker API. Its
 * stdout is deterministic, so a run with the shim can be compared byte for
 * byte with a run without it.
 *
 *   sig_app MODE
 *
 *   raise-SIG         (TERM, INT, HUP, XCPU) times "work" (3 calls), starts
 *                     "inside" and raises SIG there: the process dies of it
 *   chain-term        a library installs its own SIGTERM handler after
 *                     Init, saving the previous one, and calls it from its
 *                     own (SIG_DFL: restores it and raises again); then
 *                     SIGTERM inside "inside"
 *   sigchld-count     counts SIGCHLD; forks one child that exits; Close;
 *                     prints how many SIGCHLD arrived
 *   wait-supervisor   a supervisor thread blocks in wait() before Close; the
 *                     worker it waits for ends after Close; prints whom
 *                     wait() returned and whether the worker was left
 *   close             times "work" and closes (a run to stop from outside
 *                     during Close)
 *   term-during-close a thread closes; meanwhile (after 500 ms) the main
 *                     thread sends the process SIGTERM: it dies of it */
#include <errno.h>
#include <likwid-marker.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

static void say(const char *s)
{
    ssize_t w = write(STDOUT_FILENO, s, strlen(s));
    (void)w;
}

/* ---- a library's SIGTERM handler that chains to the previous one ---- */

static struct sigaction previous;
static volatile sig_atomic_t lib_calls;

static void library_handler(int sig)
{
    lib_calls++;
    say(lib_calls == 1 ? "sig_app: library handler\n" : "sig_app: library handler AGAIN\n");
    if (lib_calls > 3)
        _exit(99);  /* looping: end it so the test fails quickly */
    if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN) {
        /* The usual fallback: restore the default and raise again. */
        signal(sig, previous.sa_handler);
        raise(sig);
    } else {
        previous.sa_handler(sig);
    }
}

static int chain_term(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = library_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &previous);
    work_region("work", 3);
    printf("sig_app: SIGTERM inside a region, chained\n");
    fflush(stdout);
    LIKWID_MARKER_START("inside");
    raise(SIGTERM);
    say("sig_app: still alive after SIGTERM\n");
    return 9;
}

static int raise_in_region(int sig)
{
    work_region("work", 3);
    printf("sig_app: signal %d inside a region\n", sig);
    fflush(stdout);
    LIKWID_MARKER_START("inside");
    raise(sig);
    return 9;
}

/* ---- SIGCHLD and wait() ---- */

static volatile sig_atomic_t chld;

static void count_chld(int sig)
{
    (void)sig;
    chld++;
}

static int sigchld_count(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = count_chld;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    work_region("work", 3);
    pid_t c = fork();
    if (c == 0)
        _exit(0);
    int st;
    while (waitpid(c, &st, 0) < 0 && errno == EINTR)
        ;
    LIKWID_MARKER_CLOSE;
    /* Anything late arrives within this. */
    struct timespec ts = {0, 200000000};
    nanosleep(&ts, NULL);
    printf("sig_app: SIGCHLD received %d time(s)\n", (int)chld);
    return 0;
}

static pid_t reaped;
static int reaped_status;

static void *supervisor(void *arg)
{
    (void)arg;
    reaped = wait(&reaped_status);
    return NULL;
}

static int wait_supervisor(void)
{
    work_region("work", 3);
    int gate[2];
    if (pipe(gate) != 0)
        return 1;
    pid_t worker = fork();
    if (worker == 0) {
        char c;
        close(gate[1]);
        while (read(gate[0], &c, 1) < 0 && errno == EINTR)
            ;
        _exit(7);
    }
    close(gate[0]);
    pthread_t th;
    pthread_create(&th, NULL, supervisor, NULL);
    struct timespec settle = {0, 100000000};
    nanosleep(&settle, NULL);   /* the supervisor is in wait() */
    LIKWID_MARKER_CLOSE;
    close(gate[1]);             /* now the worker ends */
    pthread_join(th, NULL);
    if (reaped == worker && WIFEXITED(reaped_status))
        printf("sig_app: the supervisor reaped its worker (status %d)\n",
               WEXITSTATUS(reaped_status));
    else
        printf("sig_app: the supervisor's wait() returned another process\n");
    int st;
    pid_t left = waitpid(worker, &st, WNOHANG);
    printf("sig_app: worker %s\n", left == worker ? "left as a zombie" : "not left behind");
    return 0;
}

static void *closer(void *arg)
{
    (void)arg;
    LIKWID_MARKER_CLOSE;
    return NULL;
}

static int term_during_close(void)
{
    work_region("work", 3);
    printf("sig_app: SIGTERM while another thread closes\n");
    fflush(stdout);
    pthread_t th;
    pthread_create(&th, NULL, closer, NULL);
    struct timespec ts = {0, 500000000};
    nanosleep(&ts, NULL);
    kill(getpid(), SIGTERM);
    pthread_join(th, NULL);
    pause();    /* until the SIGTERM ends the process */
    return 9;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sig_app MODE\n");
        return 2;
    }
    const char *m = argv[1];
    LIKWID_MARKER_INIT;
    if (strcmp(m, "chain-term") == 0)
        return chain_term();
    if (strcmp(m, "sigchld-count") == 0)
        return sigchld_count();
    if (strcmp(m, "wait-supervisor") == 0)
        return wait_supervisor();
    if (strcmp(m, "term-during-close") == 0)
        return term_during_close();
    if (strcmp(m, "close") == 0) {
        work_region("work", 3);
        LIKWID_MARKER_CLOSE;
        printf("sig_app: closed\n");
        return 0;
    }
    static const struct {
        const char *name;
        int sig;
    } sigs[] = {{"raise-TERM", SIGTERM}, {"raise-INT", SIGINT}, {"raise-HUP", SIGHUP},
                {"raise-XCPU", SIGXCPU}};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (strcmp(m, sigs[i].name) == 0)
            return raise_in_region(sigs[i].sig);
    fprintf(stderr, "sig_app: unknown mode '%s'\n", m);
    return 2;
}
