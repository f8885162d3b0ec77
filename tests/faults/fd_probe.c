/* Stands in for a helper (scope-likwid-collect or scope-likwid-write) to
 * check what the shim hands it: appends to $FAULT_PROBE_OUT one line per
 * start, "role fds=LIST preload=yes|no mapped=yes|no", then execs the real
 * helper ($FAULT_PROBE_COLLECT for the collector's arguments, a marker file
 * and the application's liblikwid, and what that LIKWID found; else
 * $FAULT_PROBE_WRITE)
 * so that the run still gets its answer. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        found |= strstr(line, "libscope_likwid") != NULL;
    fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    /* First, before this program opens anything itself. */
    char fds[1024] = "";
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
                continue;
            size_t n = strlen(fds);
            snprintf(fds + n, sizeof fds - n, "%s%s", n ? "," : "", e->d_name);
        }
        closedir(d);
    }
    const char *pre = getenv("LD_PRELOAD");
    int collect = argc == 2 || (argc >= 3 && strstr(argv[2], "liblikwid"));
    const char *role = collect ? "collect" : "write";
    const char *out = getenv("FAULT_PROBE_OUT");
    if (out) {
        int fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) {
            dprintf(fd, "%s fds=%s preload=%s mapped=%s\n", role, fds,
                    pre && strstr(pre, "libscope_likwid") ? "yes" : "no",
                    mapped() ? "yes" : "no");
            close(fd);
        }
    }
    const char *real = getenv(collect ? "FAULT_PROBE_COLLECT" : "FAULT_PROBE_WRITE");
    if (!real) {
        fprintf(stderr, "fd_probe: FAULT_PROBE_COLLECT/FAULT_PROBE_WRITE not set\n");
        return 1;
    }
    argv[0] = (char *)real;
    execv(real, argv);
    perror("fd_probe: execv");
    return 1;
}
