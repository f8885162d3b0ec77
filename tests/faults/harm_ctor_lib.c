/* A library that starts LIKWID's marker API in its constructor (harm.sh
 * ctor): the constructor runs while the program is loaded, before the
 * constructors of objects loaded earlier in the search order (LD_PRELOAD's
 * among them) may have run. */
#include <likwid-marker.h>

__attribute__((constructor)) static void harm_ctor_init(void)
{
    LIKWID_MARKER_INIT;
}

void harm_ctor_work(const char *tag, int calls);

void harm_ctor_work(const char *tag, int calls)
{
    static volatile double sink;
    (void)sink;
    for (int i = 0; i < calls; i++) {
        LIKWID_MARKER_START(tag);
        double s = 0;
        for (int k = 0; k < 20000; k++)
            s += (double)k * 0.5;
        sink = s;
        LIKWID_MARKER_STOP(tag);
    }
}
