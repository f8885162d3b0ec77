/* A marker loop for the Slurm cases: two threads (main and one worker)
 * each time region "step" again and again until SECONDS have passed (0:
 * until killed), then Close. After each completed call (Stop returned) a
 * thread adds one to its slot in COUNTFILE, a file mapped MAP_SHARED, so
 * that the calls completed before a kill are known however the process
 * ends (the kernel keeps the pages).
 *
 *   loop_app SECONDS COUNTFILE
 *
 * COUNTFILE gets two 8-byte counters (main thread, worker). Prints
 * "loop_app: started" once both threads are in the loop and "loop_app:
 * closed" after Close. */
#include <likwid-marker.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static _Atomic long *counts;
static double seconds;
static _Atomic int running;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void loop(int slot)
{
    double end = now_s() + seconds;
    while (seconds <= 0 || now_s() < end) {
        LIKWID_MARKER_START("step");
        struct timespec nap = {0, 2000000};
        nanosleep(&nap, NULL);
        LIKWID_MARKER_STOP("step");
        atomic_fetch_add(&counts[slot], 1);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    LIKWID_MARKER_THREADINIT;
    atomic_fetch_add(&running, 1);
    loop(1);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: loop_app SECONDS COUNTFILE\n");
        return 2;
    }
    seconds = atof(argv[1]);
    int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, 16) != 0) {
        perror(argv[2]);
        return 1;
    }
    counts = mmap(NULL, 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (counts == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    close(fd);
    LIKWID_MARKER_INIT;
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    while (atomic_load(&running) == 0)
        usleep(1000);
    printf("loop_app: started\n");
    fflush(stdout);
    loop(0);
    pthread_join(t, NULL);
    LIKWID_MARKER_CLOSE;
    printf("loop_app: closed\n");
    return 0;
}
