/* A test program instrumented with LIKWID's marker API, built against the
 * real LIKWID headers and library. Usage: sim_app SCENARIO
 *   normal     regions "init" (main), "solve-step" (main + one thread, 10
 *              calls each), "io phase" (main, 2 calls), "never" (registered
 *              only: dropped from the file); prints "sim_app done"
 *   switch     as normal, with likwid_markerNextGroup() half way through
 *              solve-step (one tag in two groups)
 *   worker-only as normal, plus a region "worker only" run by the worker alone
 *   get        prints what GetRegion reports for "solve-step" on main
 *   stop-unknown, reset-unknown, get-unknown, double-close
 *              LIKWID's crash hazards (the simulation raises SIGSEGV) */
#include <likwid-marker.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Per thread: the worker and main both run work(); one global would be a
 * data race (TSan reports it). */
static _Thread_local volatile double sink;

static void work(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)i * 0.5;
    sink = s;
}

static int do_switch, worker_only;
static pthread_barrier_t barrier;

static void solve_steps(void)
{
    for (int i = 0; i < 10; i++) {
        LIKWID_MARKER_START("solve-step");
        work(20000);
        LIKWID_MARKER_STOP("solve-step");
    }
}

/* Main and one worker solve side by side; with "switch" both do a second
 * phase after main has switched groups between two barriers. */
static void *worker(void *arg)
{
    (void)arg;
    LIKWID_MARKER_THREADINIT;
    solve_steps();
    if (worker_only) {
        LIKWID_MARKER_START("worker only");
        work(1000);
        LIKWID_MARKER_STOP("worker only");
    }
    if (do_switch) {
        pthread_barrier_wait(&barrier);
        pthread_barrier_wait(&barrier);
        solve_steps();
    }
    return NULL;
}

static void solve(void)
{
    pthread_t t;
    pthread_barrier_init(&barrier, NULL, 2);
    pthread_create(&t, NULL, worker, NULL);
    solve_steps();
    if (do_switch) {
        pthread_barrier_wait(&barrier);
        LIKWID_MARKER_SWITCH;
        pthread_barrier_wait(&barrier);
        solve_steps();
    }
    pthread_join(t, NULL);
    pthread_barrier_destroy(&barrier);
}

int main(int argc, char **argv)
{
    const char *sc = argc > 1 ? argv[1] : "normal";
    LIKWID_MARKER_INIT;
    LIKWID_MARKER_REGISTER("never");
    LIKWID_MARKER_START("init");
    work(1000);
    LIKWID_MARKER_STOP("init");
    if (strcmp(sc, "stop-unknown") == 0)
        LIKWID_MARKER_STOP("not started");
    if (strcmp(sc, "reset-unknown") == 0)
        LIKWID_MARKER_RESET("not started");
    if (strcmp(sc, "get-unknown") == 0) {
        int n = 0, c = 0;
        double t = 0;
        LIKWID_MARKER_GET("not started", &n, NULL, &t, &c);
    }
    do_switch = strcmp(sc, "switch") == 0;
    worker_only = strcmp(sc, "worker-only") == 0;
    solve();
    if (do_switch) {
        LIKWID_MARKER_START("residual");
        work(1000);
        LIKWID_MARKER_STOP("residual");
    }
    for (int i = 0; i < 2; i++) {
        LIKWID_MARKER_START("io phase");
        work(5000);
        LIKWID_MARKER_STOP("io phase");
    }
    if (strcmp(sc, "get") == 0) {
        double ev[20] = {0}, t = 0;
        int n = 20, c = 0;
        LIKWID_MARKER_GET("solve-step", &n, ev, &t, &c);
        printf("get: count %d events %d time>0 %d ev0>0 %d\n", c, n, t > 0, ev[0] > 0);
        n = 2;
        LIKWID_MARKER_GET("solve-step", &n, ev, &t, &c);
        printf("get: capped events %d\n", n);
    }
    LIKWID_MARKER_CLOSE;
    if (strcmp(sc, "double-close") == 0)
        LIKWID_MARKER_CLOSE;
    printf("sim_app done\n");
    return 0;
}
