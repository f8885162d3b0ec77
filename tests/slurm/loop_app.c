/* A marker loop for the Slurm cases: the main thread times region "step"
 * again and again until SECONDS have passed (0: until killed), then Close;
 * a second thread times region "side" meanwhile (so that a signal may be
 * delivered to a thread other than the one in the shim's handler). After
 * each completed "step" (Stop returned) the main thread adds one to the
 * counter in COUNTFILE, a file mapped MAP_SHARED, so that the calls
 * completed before a kill are known however the process ends (the kernel
 * keeps the page). Once a terminating signal is in the shim's handler, the
 * main thread makes no more calls; the side thread's later calls are not
 * timed (the cycle has ended), so they are not counted.
 *
 *   loop_app SECONDS COUNTFILE
 *
 * Prints "loop_app: started" once both threads are in their loops and
 * "loop_app: closed" after Close. */
#include <likwid-marker.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double seconds;
static _Atomic int side_running, done;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(void)
{
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
}

static void *side(void *arg)
{
    (void)arg;
    LIKWID_MARKER_THREADINIT;
    atomic_store(&side_running, 1);
    while (!atomic_load(&done)) {
        LIKWID_MARKER_START("side");
        nap();
        LIKWID_MARKER_STOP("side");
    }
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
    if (fd < 0 || ftruncate(fd, 8) != 0) {
        perror(argv[2]);
        return 1;
    }
    _Atomic long *count = mmap(NULL, 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (count == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    close(fd);
    LIKWID_MARKER_INIT;
    pthread_t t;
    if (pthread_create(&t, NULL, side, NULL) != 0)
        return 1;
    while (!atomic_load(&side_running))
        usleep(1000);
    printf("loop_app: started\n");
    fflush(stdout);
    double end = now_s() + seconds;
    while (seconds <= 0 || now_s() < end) {
        LIKWID_MARKER_START("step");
        nap();
        LIKWID_MARKER_STOP("step");
        atomic_fetch_add(count, 1);
    }
    atomic_store(&done, 1);
    pthread_join(t, NULL);
    LIKWID_MARKER_CLOSE;
    printf("loop_app: closed\n");
    return 0;
}
