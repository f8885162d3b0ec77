/* A plugin linked with liblikwid (a MATLAB mex file, a Python extension):
 * plugin_run() does its own Init, 10 Start/Stop pairs of "plug" and Close,
 * and returns how many calls returned what LIKWID returns without counting
 * (stdout of the host the same with the shim as without);
 * plugin_regions(n) makes n pairs of "plug" only (the host's Init and
 * Close around them). Built twice (meson.build): lazily bound, and with
 * -z now -fno-plt (every call through a GLOB_DAT slot on RELRO pages). */
#include <likwid-marker.h>

int plugin_run(void);
void plugin_regions(int n);

int plugin_run(void)
{
    LIKWID_MARKER_INIT;
    plugin_regions(10);
    LIKWID_MARKER_CLOSE;
    return 10;
}

void plugin_regions(int n)
{
    for (int i = 0; i < n; i++) {
        LIKWID_MARKER_START("plug");
        LIKWID_MARKER_STOP("plug");
    }
}
