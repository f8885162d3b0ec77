/* Writes the fixture run(s) to a given path, for check_h5py.py:
 *   sample_writer OUT.h5        one rank (0)
 *   sample_writer OUT.h5 big    1000 regions x 128 threads x 8 events, timed */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"
#include "h5write.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT.h5 [big]\n", argv[0]);
        return 2;
    }
    int big = argc > 2 && strcmp(argv[2], "big") == 0;
    sl_run runs[2];
    size_t nruns = 1;
    if (big)
        fixture_big(&runs[0], 1000, 128, 8);
    else {
        fixture_run(&runs[0], 0);
        fixture_run(&runs[1], 3);
        nruns = 2;
    }
    sl_diag diag;
    sl_diag_init(&diag);
    char *written = NULL;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int rc = sl_h5_write(argv[1], runs, nruns, &written, &diag);
    clock_gettime(CLOCK_MONOTONIC, &b);
    for (size_t i = 0; i < diag.kept; i++)
        fprintf(stderr, "%s\n", diag.lines[i]);
    if (rc == 0)
        printf("%s %.1f ms\n", written, (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
    free(written);
    sl_diag_free(&diag);
    for (size_t i = 0; i < nruns; i++)
        sl_run_free(&runs[i]);
    return rc ? 1 : 0;
}
