/* The bundled example application: a small OpenMP "solver" instrumented
 * with LIKWID's marker API exactly as users do it (likwid-marker.h,
 * -DLIKWID_PERFMON, linked against liblikwid). Its stdout is deterministic
 * whatever the thread count, so tests can compare runs byte for byte.
 *
 * Regions: "init" (once, serial), "solve-step" (steps times on every
 * thread), "io phase" (once, serial; a tag with a blank).
 *
 * Options (for the end-to-end tests):
 *   --steps N         number of solve steps (default 20)
 *   --exit-status N   return N from main after a normal Close
 *   --exit-in-region  call exit(5) inside "io phase": no Stop, no Close
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <likwid-marker.h>

#define N 100000

static double x[N];

static int parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0 || v > 1000000)
        return -EINVAL;
    *out = (int)v;
    return 0;
}

static int usage(const char *prog)
{
    fprintf(stderr, "usage: %s [--steps N] [--exit-status N] [--exit-in-region]\n", prog);
    return 2;
}

int main(int argc, char **argv)
{
    int steps = 20, status = 0, exit_in_region = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            if (parse_int(argv[++i], &steps) != 0)
                return usage(argv[0]);
        } else if (strcmp(argv[i], "--exit-status") == 0 && i + 1 < argc) {
            if (parse_int(argv[++i], &status) != 0 || status > 255)
                return usage(argv[0]);
        } else if (strcmp(argv[i], "--exit-in-region") == 0) {
            exit_in_region = 1;
        } else {
            return usage(argv[0]);
        }
    }

    LIKWID_MARKER_INIT;

    LIKWID_MARKER_START("init");
    for (int i = 0; i < N; i++)
        x[i] = (double)(i % 97) / 97.0;
    LIKWID_MARKER_STOP("init");

#pragma omp parallel
    {
        LIKWID_MARKER_THREADINIT;
        LIKWID_MARKER_REGISTER("solve-step");
        for (int s = 0; s < steps; s++) {
            LIKWID_MARKER_START("solve-step");
            /* Each element is updated independently: the result does not
             * depend on how the loop is split between threads. */
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                x[i] = 0.5 * x[i] + 0.25 * (double)((i + s) % 13);
            LIKWID_MARKER_STOP("solve-step");
        }
    }

    LIKWID_MARKER_START("io phase");
    double sum = 0.0;
    for (int i = 0; i < N; i++)
        sum += x[i];
    printf("solver: n=%d steps=%d checksum=%.6f\n", N, steps, sum);
    fflush(stdout);
    if (exit_in_region)
        exit(5);
    LIKWID_MARKER_STOP("io phase");

    LIKWID_MARKER_CLOSE;
    return status;
}
