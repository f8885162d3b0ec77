/* A library that starts LIKWID's marker API in its constructor (harm.sh
 * ctor): the constructor runs while the program is loaded, before the
 * constructors of objects loaded earlier in the search order (LD_PRELOAD's
 * among them) may have run. */
#include <likwid-marker.h>

__attribute__((constructor)) static void harm_ctor_init(void)
{
    LIKWID_MARKER_INIT;
}

/* Referenced by the program, so the linker keeps the library. */
int harm_ctor_linked(void);

int harm_ctor_linked(void)
{
    return 1;
}
