/* Group rotation (rotation.sh): two OpenMP threads run "both" in the first
 * group and, after one LIKWID_MARKER_SWITCH, in the second; "first-only"
 * runs in the first group only, so LIKWID's active group at Close is one
 * that region never ran in. */
#include <likwid-marker.h>
#include <stdio.h>

#define N 100000

static double x[N];

static void work(int s)
{
#pragma omp for schedule(static)
    for (int i = 0; i < N; i++)
        x[i] = 0.5 * x[i] + 0.25 * (double)((i + s) % 13);
}

int main(void)
{
    LIKWID_MARKER_INIT;
#pragma omp parallel
    {
        LIKWID_MARKER_THREADINIT;
        for (int g = 0; g < 2; g++) {
            LIKWID_MARKER_START("both");
            work(g);
            LIKWID_MARKER_STOP("both");
            if (g == 0) {
                LIKWID_MARKER_START("first-only");
                work(g);
                LIKWID_MARKER_STOP("first-only");
#pragma omp barrier
#pragma omp single
                LIKWID_MARKER_SWITCH;
            }
        }
    }
    LIKWID_MARKER_CLOSE;
    printf("switch_app: %.6f\n", x[7]);
    return 0;
}
