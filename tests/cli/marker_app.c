/* A tiny program using LIKWID's marker API, for `scope-likwid run` tests.
 * Optional argument: exit code. */
#include <likwid.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    likwid_markerInit();
    for (int i = 0; i < 3; i++) {
        likwid_markerStartRegion("cli-region");
        likwid_markerStopRegion("cli-region");
    }
    likwid_markerClose();
    return argc > 1 ? atoi(argv[1]) : 0;
}
