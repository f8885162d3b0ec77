/* Preloaded for the writer at a signal: a file system whose fsync takes
 * SL_SLOW_FSYNC_S seconds (a slow or hung NFS server), so that the writer
 * is still at work when its own deadline comes. Without the variable,
 * fsync as usual. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int fsync(int fd)
{
    const char *v = getenv("SL_SLOW_FSYNC_S");
    if (v && atoi(v) > 0) {
        struct timespec ts = {atoi(v), 0};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    int (*real)(int) = NULL;
    void *sym = dlsym(RTLD_NEXT, "fsync");
    memcpy(&real, &sym, sizeof real); /* void* to function: -Wpedantic */
    return real ? real(fd) : 0;
}
