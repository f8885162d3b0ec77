/* An MPI + OpenMP marker-API program for likwid-mpirun on the emulated PMU
 * (mpirun.sh): every rank runs "init", "solve-step" (10 calls per thread)
 * and "reduce". Its region names have no blank: likwid-mpirun's parser
 * stops at one ("table index is nil"). */
#include <likwid-marker.h>
#include <mpi.h>
#include <stdio.h>

#define N 200000

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
        for (int s = 0; s < 10; s++) {
            LIKWID_MARKER_START("solve-step");
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                x[i] = 0.5 * x[i] + 0.25 * (double)((i + s) % 13);
            LIKWID_MARKER_STOP("solve-step");
        }
    }
    LIKWID_MARKER_START("reduce");
    double local = 0.0, global = 0.0;
    for (int i = 0; i < N; i++)
        local += x[i];
    MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    LIKWID_MARKER_STOP("reduce");
    if (rank == 0)
        printf("mpi_app: ranks=%d checksum=%.6f\n", size, global);
    LIKWID_MARKER_CLOSE;
    MPI_Finalize();
    return 0;
}
