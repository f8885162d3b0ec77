/* MPI + OpenMP variant of solver.c: every rank runs the same regions on its
 * share of the data; rank 0 prints the global checksum (deterministic for a
 * given number of ranks). Under the shim each rank gets its own result file
 * (scope-likwid-rank<R>.h5). */
#include <stdio.h>
#include <mpi.h>
#include <omp.h>
#include <likwid-marker.h>

#define N 100000
#define STEPS 10
/* The last region: likwid-mpirun's own parser stops at a blank in a region
 * name, so tests/emulated builds this with -DIO_REGION='"io-phase"'. */
#ifndef IO_REGION
#define IO_REGION "io phase"
#endif

static double x[N];

int main(int argc, char **argv)
{
    int provided = 0, rank = 0, size = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    LIKWID_MARKER_INIT;

    LIKWID_MARKER_START("init");
    for (int i = 0; i < N; i++)
        x[i] = (double)((i + rank * N) % 97) / 97.0;
    LIKWID_MARKER_STOP("init");

#pragma omp parallel
    {
        LIKWID_MARKER_THREADINIT;
        for (int s = 0; s < STEPS; s++) {
            LIKWID_MARKER_START("solve-step");
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                x[i] = 0.5 * x[i] + 0.25 * (double)((i + s) % 13);
            LIKWID_MARKER_STOP("solve-step");
        }
    }

    LIKWID_MARKER_START(IO_REGION);
    double local = 0.0, global = 0.0;
    for (int i = 0; i < N; i++)
        local += x[i];
    MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_solver: ranks=%d n=%d steps=%d checksum=%.6f\n", size, N, STEPS, global);
    fflush(stdout);
    LIKWID_MARKER_STOP(IO_REGION);

    LIKWID_MARKER_CLOSE;
    MPI_Finalize();
    return 0;
}
