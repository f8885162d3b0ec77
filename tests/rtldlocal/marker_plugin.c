/* A plugin linked with liblikwid, as a host application would dlopen() it
 * RTLD_LOCAL: LIKWID is then not in the global scope. plugin_run() runs the
 * marker API from NTHREADS threads and prints what LIKWID answered (return
 * codes, GetRegion's event and call counts: never times), in thread order,
 * so stdout is the same with and without the shim. */
#include <likwid.h>
#include <pthread.h>
#include <stdio.h>

#define MAXT 8
#define CALLS 10
#define CAP 16

typedef struct result {
    int start_rc, stop_rc, nr, count, events_ok;
    volatile double sink;   /* keeps the work; per thread (no shared write) */
} result;

static result res[MAXT];

static void *work(void *arg)
{
    result *r = arg;
    likwid_markerThreadInit();
    for (int i = 0; i < CALLS; i++) {
        r->start_rc = likwid_markerStartRegion("plugin-work");
        double s = 0;
        for (int k = 0; k < 20000; k++)
            s += k * 0.5;
        r->sink = s;
        r->stop_rc = likwid_markerStopRegion("plugin-work");
    }
    double ev[CAP], t = -1;
    int nr = CAP, count = -1;
    for (int e = 0; e < CAP; e++)
        ev[e] = -1;
    likwid_markerGetRegion("plugin-work", &nr, ev, &t, &count);
    r->nr = nr;
    r->count = count;
    /* every event reported is written (LIKWID's counters are >= 0) */
    r->events_ok = nr >= 0 && nr <= CAP;
    for (int e = 0; r->events_ok && e < nr; e++)
        r->events_ok = ev[e] >= 0;
    return NULL;
}

__attribute__((visibility("default"))) int plugin_run(int nthreads);

int plugin_run(int nthreads)
{
    if (nthreads < 1 || nthreads > MAXT)
        return 2;
    likwid_markerInit();
    printf("register %d\n", likwid_markerRegisterRegion("plugin-work"));
    if (nthreads == 1) {
        work(&res[0]);
    } else {
        pthread_t t[MAXT];
        for (int i = 0; i < nthreads; i++)
            if (pthread_create(&t[i], NULL, work, &res[i]) != 0)
                return 3;
        for (int i = 0; i < nthreads; i++)
            pthread_join(t[i], NULL);
    }
    for (int i = 0; i < nthreads; i++)
        printf("thread %d: start %d stop %d events %d count %d written %s\n", i, res[i].start_rc,
               res[i].stop_rc, res[i].nr, res[i].count, res[i].events_ok ? "yes" : "no");
    likwid_markerClose();
    return 0;
}
