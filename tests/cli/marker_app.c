/* A tiny program using LIKWID's marker API, for `scope-likwid run` tests.
 * Optional argument: exit code, or "kill": killed by SIGKILL before Close.
 * Prints its pid (the result file is named after it). */
#include <likwid.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    printf("pid %ld\n", (long)getpid());
    fflush(stdout);
    likwid_markerInit();
    for (int i = 0; i < 3; i++) {
        likwid_markerStartRegion("cli-region");
        likwid_markerStopRegion("cli-region");
    }
    if (argc > 1 && argv[1][0] == 'k')
        kill(getpid(), SIGKILL);
    likwid_markerClose();
    return argc > 1 ? atoi(argv[1]) : 0;
}
