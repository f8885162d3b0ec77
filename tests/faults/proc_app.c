/* The application side of the process cases (proc.sh): a program that
 * changes its process in the way argv[1] names, between Init and its end.
 * Built against the real LIKWID headers and library; stdout deterministic.
 *
 *   proc_app MODE [ARG]
 *
 * Every mode calls likwid_markerInit and times "work" (main thread, 3 calls)
 * first. */
#include <errno.h>
#include <likwid-marker.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static void work_region(const char *tag, int calls)
{
    for (int i = 0; i < calls; i++) {
        LIKWID_MARKER_START(tag);
        double s = 0;
        for (int k = 0; k < 20000; k++)
            s += (double)k * 0.5;
        sink = s;
        LIKWID_MARKER_STOP(tag);
    }
}

/* chdir after Init (a relative LD_PRELOAD no longer names the shim). */
static int chdir_away(void)
{
    if (chdir("/") != 0) {
        perror("chdir");
        return 1;
    }
    work_region("after-chdir", 2);
    LIKWID_MARKER_CLOSE;
    printf("proc_app: closed in /\n");
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *m = argc > 1 ? argv[1] : "";
    LIKWID_MARKER_INIT;
    work_region("work", 3);
    if (strcmp(m, "chdir") == 0)
        return chdir_away();
    if (strcmp(m, "close") == 0) {
        LIKWID_MARKER_CLOSE;
        printf("proc_app: closed\n");
        return 0;
    }
    fprintf(stderr, "proc_app: unknown mode '%s'\n", m);
    return 2;
}
