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

/* exec-self: the program execs itself ("again"), which times "second" and
 * closes. exec-other: it execs /bin/echo. exec-fail: an exec that fails,
 * then more regions and Close. */
static int exec_mode(const char *m, char **argv)
{
    if (strcmp(m, "exec-self") == 0) {
        char *args[] = {argv[0], "again", NULL};
        execv("/proc/self/exe", args);
        perror("execv");
        return 1;
    }
    if (strcmp(m, "exec-other") == 0) {
        execl("/bin/echo", "echo", "proc_app: echo in the exec'd image", (char *)NULL);
        perror("execl");
        return 1;
    }
    char *args[] = {"nonexistent", NULL};
    execvp("/nonexistent/proc_app-no-such-program", args);
    printf("proc_app: exec failed: %s\n", strerror(errno));
    work_region("after-exec", 2);
    LIKWID_MARKER_CLOSE;
    printf("proc_app: closed\n");
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
    if (strncmp(m, "exec-", 5) == 0)
        return exec_mode(m, argv);
    if (strcmp(m, "again") == 0) {
        work_region("second", 2);
        LIKWID_MARKER_CLOSE;
        printf("proc_app: the exec'd image closed\n");
        return 0;
    }
    if (strcmp(m, "close") == 0) {
        LIKWID_MARKER_CLOSE;
        printf("proc_app: closed\n");
        return 0;
    }
    fprintf(stderr, "proc_app: unknown mode '%s'\n", m);
    return 2;
}
