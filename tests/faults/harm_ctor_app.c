/* harm.sh ctor: LIKWID's marker API started in a library's constructor
 * (harm_ctor_lib.c); main times "work" 3 times, then gets SIGTERM inside
 * "inside" and dies of it. */
#include <likwid-marker.h>
#include <signal.h>
#include <stdio.h>

void harm_ctor_work(const char *tag, int calls);

int main(void)
{
    harm_ctor_work("work", 3);
    printf("harm_ctor_app: terminating\n");
    fflush(stdout);
    LIKWID_MARKER_START("inside");
    raise(SIGTERM);
    return 0;
}
