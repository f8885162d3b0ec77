/* harm.sh ctor: LIKWID's marker API started in a library's constructor
 * (harm_ctor_lib.c); main times "work" 3 times, then gets SIGTERM inside
 * "inside" and dies of it. */
#include <likwid-marker.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int harm_ctor_linked(void);

int main(void)
{
    for (int i = 0; i < 3 * harm_ctor_linked(); i++) {
        LIKWID_MARKER_START("work");
        usleep(1000);
        LIKWID_MARKER_STOP("work");
    }
    printf("harm_ctor_app: terminating\n");
    fflush(stdout);
    LIKWID_MARKER_START("inside");
    raise(SIGTERM);
    return 0;
}
