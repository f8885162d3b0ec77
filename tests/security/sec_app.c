/* The application of the site-wide safety tests (tests/security): times
 * "work" three times between Init and Close, in one of these modes:
 *   plain [ARGS...]    Init, work x3, Close ("done" on stdout)
 *   wait GO            its pid into GO.pid, waits (60 s at most) for GO to
 *                      exist, then as plain: a process that outlives the
 *                      `scope-likwid run` that started it
 *   hold GO            Init, work x3, "held" into GO.held, waits for GO,
 *                      work x3 again, Close: a live journal to look at
 *   kill               Init, work x3, then SIGKILL: a journal left behind */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <likwid-marker.h>

static void work(void)
{
    for (int i = 0; i < 3; i++) {
        LIKWID_MARKER_START("work");
        LIKWID_MARKER_STOP("work");
    }
}

static int await(const char *go)
{
    for (int i = 0; i < 6000; i++) {
        if (access(go, F_OK) == 0)
            return 0;
        struct timespec t = {0, 10000000};
        nanosleep(&t, NULL);
    }
    return 1;
}

static void note(const char *go, const char *suffix, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%s", go, suffix);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "plain";
    const char *go = argc > 2 ? argv[2] : "";
    if (!strcmp(mode, "wait")) {
        char pid[32];
        snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
        note(go, "pid", pid);
        if (await(go))
            return 3;
    }
    LIKWID_MARKER_INIT;
    work();
    if (!strcmp(mode, "kill")) {
        fflush(NULL);
        raise(SIGKILL);
    }
    if (!strcmp(mode, "hold")) {
        note(go, "held", "held\n");
        if (await(go))
            return 3;
        work();
    }
    LIKWID_MARKER_CLOSE;
    printf("done\n");
    return 0;
}
