/* A plugin linked with liblikwid (a MATLAB mex file, a Python extension):
 * plugin_run() does its own Init, 10 Start/Stop pairs of "plug" and Close,
 * and returns how many calls returned what LIKWID returns without counting
 * (stdout of the host the same with the shim as without). */
#include <likwid-marker.h>

int plugin_run(void);

int plugin_run(void)
{
    LIKWID_MARKER_INIT;
    for (int i = 0; i < 10; i++) {
        LIKWID_MARKER_START("plug");
        LIKWID_MARKER_STOP("plug");
    }
    LIKWID_MARKER_CLOSE;
    return 10;
}
