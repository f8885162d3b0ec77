/* Many regions on many threads, for the shim's memory and Close figures.
 *
 * usage: regions R T N [close]
 *   T threads (started together), each runs R regions ("region00000"...)
 *   N times each (Start/Stop pairs), then all threads are joined.
 *   Prints "heap_bytes B" (malloc'ed bytes in use, every arena, after the
 *   calls: with the shim minus without = the shim's tables), "rss_kb K"
 *   (VmRSS then: adds the shim's sample arenas, which are mmap'ed), and
 *   with "close" also "close_ms" (likwid_markerClose, which returns with
 *   the result file in place) and "result_in_place 0|1" for
 *   $SCOPE_LIKWID_OUTPUT. Linked with the real LIKWID (not counting here,
 *   or the simulated one under sim-perfctr). */
#include <likwid-marker.h>
#include <likwid.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long nregions, ncalls;
static char (*tags)[24];

static void *work(void *arg)
{
    (void)arg;
    likwid_markerThreadInit();
    for (long r = 0; r < nregions; r++)
        for (long i = 0; i < ncalls; i++) {
            likwid_markerStartRegion(tags[r]);
            likwid_markerStopRegion(tags[r]);
        }
    return NULL;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (nregions = atol(argv[1])) < 0 || atol(argv[2]) < 1 ||
        (ncalls = atol(argv[3])) < 0) {
        fprintf(stderr, "usage: regions REGIONS THREADS CALLS [close]\n");
        return 2;
    }
    long nthreads = atol(argv[2]);
    int do_close = argc > 4 && strcmp(argv[4], "close") == 0;
    tags = calloc((size_t)nregions + 1, sizeof *tags);
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    if (!tags || !th)
        return 1;
    for (long r = 0; r < nregions; r++)
        snprintf(tags[r], sizeof tags[r], "region%05d", (int)r);
    likwid_markerInit();
    for (long i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], NULL, work, NULL) != 0) {
            fprintf(stderr, "regions: pthread_create failed\n");
            return 1;
        }
    for (long i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    struct mallinfo2 mi = mallinfo2();
    printf("heap_bytes %zu\n", mi.uordblks + mi.hblkhd);
    printf("rss_kb %ld\n", rss_kb());
    fflush(stdout);
    double t0 = now_ms();
    likwid_markerClose();
    double t1 = now_ms();
    if (do_close) {
        const char *out = getenv("SCOPE_LIKWID_OUTPUT");
        printf("close_ms %.3f\n", t1 - t0);
        printf("result_in_place %d\n", out && access(out, F_OK) == 0);
    }
    free(tags);
    free(th);
    return 0;
}
