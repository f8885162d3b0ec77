/* A program with the shim built in (a setuid program ignores LD_PRELOAD
 * from outside the trusted directories): times "work" three times and
 * closes. tests/faults/setuid.sh runs a setuid-root copy of it as an
 * unprivileged user. */
#include <stdio.h>

void likwid_markerInit(void);
int likwid_markerStartRegion(const char *);
int likwid_markerStopRegion(const char *);
void likwid_markerClose(void);

int main(void)
{
    likwid_markerInit();
    for (int i = 0; i < 3; i++) {
        likwid_markerStartRegion("work");
        likwid_markerStopRegion("work");
    }
    likwid_markerClose();
    printf("setuid_app: done\n");
    return 0;
}
