/* Benchmark of the marker hot path: N likwid_markerStartRegion/StopRegion
 * pairs of one tag, linked with the real liblikwid (no-count mode here:
 * LIKWID returns at once), so that running it with and without
 * LD_PRELOAD=libscope_likwid.so shows what the shim adds per pair.
 *
 * usage: hotpath [N] [MODE]
 *   N     pairs per thread (default 10000000)
 *   MODE  all   (default) 1 thread, 2 threads, rdtsc/rdtscp/clock_gettime pairs
 *         count only the 1-thread loop (for callgrind: nothing else runs)
 *         close 20 regions x 4 threads, N calls each, then the time
 *               likwid_markerClose takes (it returns with the result file
 *               in place) and whether $SCOPE_LIKWID_OUTPUT exists then
 * Output: one "key value..." line per figure (ns per pair, or a count).
 *
 * It also counts malloc/calloc/realloc calls made while the pairs run (after
 * one warm-up pair, i.e. after the tag's first use): the executable defines
 * these functions, which wins over libc for every library in the process
 * (the preloaded shim included), and forwards to glibc's __libc_ ones. */
#include <likwid-marker.h>
#include <likwid.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* ---- allocation counter ---- */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static _Atomic long n_alloc;

void *malloc(size_t n)
{
    atomic_fetch_add_explicit(&n_alloc, 1, memory_order_relaxed);
    return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    atomic_fetch_add_explicit(&n_alloc, 1, memory_order_relaxed);
    return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    atomic_fetch_add_explicit(&n_alloc, 1, memory_order_relaxed);
    return __libc_realloc(p, n);
}

void free(void *p)
{
    __libc_free(p);
}

/* ---- timing ---- */
static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const char *const TAG = "hot";
static long npairs = 10000000;
static volatile uint64_t sink;

static double pairs(void)
{
    int64_t t0 = now_ns();
    for (long i = 0; i < npairs; i++) {
        likwid_markerStartRegion(TAG);
        likwid_markerStopRegion(TAG);
    }
    return (double)(now_ns() - t0) / (double)npairs;
}

typedef struct worker {
    pthread_barrier_t *bar;
    double ns;
    long allocs;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    likwid_markerThreadInit();
    likwid_markerStartRegion(TAG);     /* warm-up: the tag's first use here */
    likwid_markerStopRegion(TAG);
    pthread_barrier_wait(w->bar);
    long a0 = atomic_load(&n_alloc);
    w->ns = pairs();
    w->allocs = atomic_load(&n_alloc) - a0;
    return NULL;
}

static void two_threads(void)
{
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 2);
    worker w[2] = {{.bar = &bar}, {.bar = &bar}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&th[i], NULL, work, &w[i]) != 0) {
            fprintf(stderr, "hotpath: pthread_create failed\n");
            exit(1);
        }
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&bar);
    /* Allocations during the timed loops may come from the other thread's
     * setup too, which is why the barrier is there: both are past it. */
    printf("pair_ns_2t %.2f %.2f\n", w[0].ns, w[1].ns);
    printf("allocs_2t %ld\n", w[0].allocs > w[1].allocs ? w[0].allocs : w[1].allocs);
}

/* The cost of two clock reads back to back: what a pair needs at least. */
static void clocks(void)
{
#if defined(__x86_64__)
    uint64_t acc = 0;
    unsigned aux;
    int64_t t0 = now_ns();
    for (long i = 0; i < npairs; i++) {
        uint64_t a = __rdtsc();
        uint64_t b = __rdtsc();
        acc += b - a;
    }
    printf("rdtsc2_ns %.2f\n", (double)(now_ns() - t0) / (double)npairs);
    t0 = now_ns();
    for (long i = 0; i < npairs; i++) {
        uint64_t a = __rdtscp(&aux);
        uint64_t b = __rdtscp(&aux);
        acc += b - a;
    }
    printf("rdtscp2_ns %.2f\n", (double)(now_ns() - t0) / (double)npairs);
    sink = acc;
#endif
    int64_t t1 = now_ns(), s = 0;
    for (long i = 0; i < npairs; i++)
        s += now_ns() - now_ns();
    printf("clock2_ns %.2f\n", (double)(now_ns() - t1) / (double)npairs);
    sink += (uint64_t)s;
}

/* ---- Close: 20 regions x 4 threads ---- */
#define CLOSE_THREADS 4
#define CLOSE_REGIONS 20

static void *close_work(void *arg)
{
    (void)arg;
    char tags[CLOSE_REGIONS][16];
    likwid_markerThreadInit();
    for (int r = 0; r < CLOSE_REGIONS; r++)
        snprintf(tags[r], sizeof tags[r], "region%02d", r);
    for (long i = 0; i < npairs; i++)
        for (int r = 0; r < CLOSE_REGIONS; r++) {
            likwid_markerStartRegion(tags[r]);
            likwid_markerStopRegion(tags[r]);
        }
    return NULL;
}

static int close_run(void)
{
    likwid_markerInit();
    pthread_t th[CLOSE_THREADS];
    for (int i = 0; i < CLOSE_THREADS; i++)
        if (pthread_create(&th[i], NULL, close_work, NULL) != 0) {
            fprintf(stderr, "hotpath: pthread_create failed\n");
            return 1;
        }
    for (int i = 0; i < CLOSE_THREADS; i++)
        pthread_join(th[i], NULL);
    int64_t t0 = now_ns();
    likwid_markerClose();
    int64_t t1 = now_ns();
    const char *out = getenv("SCOPE_LIKWID_OUTPUT");
    printf("close_ms %.3f\n", (double)(t1 - t0) / 1e6);
    printf("result_in_place %d\n", out && access(out, F_OK) == 0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && (npairs = strtol(argv[1], NULL, 10)) <= 0) {
        fprintf(stderr, "usage: hotpath [N>0] [all|count|close]\n");
        return 2;
    }
    int count_only = argc > 2 && strcmp(argv[2], "count") == 0;
    if (argc > 2 && strcmp(argv[2], "close") == 0)
        return close_run();
    likwid_markerInit();
    likwid_markerStartRegion(TAG);     /* warm-up: the tag's first use */
    likwid_markerStopRegion(TAG);
    long a0 = atomic_load(&n_alloc);
    double one = pairs();
    long allocs = atomic_load(&n_alloc) - a0;
    if (!count_only) {
        printf("pair_ns_1t %.2f\n", one);
        printf("allocs_1t %ld\n", allocs);
        two_threads();
        clocks();
    } else {
        printf("allocs_1t %ld\n", allocs);
    }
    fflush(stdout);
    likwid_markerClose();
    return 0;
}
