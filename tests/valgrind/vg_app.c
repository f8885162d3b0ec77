/* A single-threaded application that prints before and after Close with
 * stdout fully buffered (a file): under valgrind, a helper's keeper that
 * ended through valgrind's exit path flushed a copy of that buffer, and the
 * line printed before Close came out twice (tests/valgrind/valgrind.sh
 * app-buffered). */
#include <stdio.h>
#include <likwid-marker.h>

int main(void)
{
    LIKWID_MARKER_INIT;
    printf("vg_app: before close\n");
    LIKWID_MARKER_START("work");
    LIKWID_MARKER_STOP("work");
    LIKWID_MARKER_START("work");
    LIKWID_MARKER_STOP("work");
    LIKWID_MARKER_CLOSE;
    printf("vg_app: after close\n");
    return 0;
}
