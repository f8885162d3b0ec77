/* LIKWID's look-up of its access daemon in the collector. LIKWID's
 * configuration (init_configuration, called by perfmon_init) asks a shell
 * for the daemon in every process that starts it, unless a configuration
 * file names one (5.2 never reads that file first):
 *   popen("bash --noprofile -c \"which likwid-accessD 2>/dev/null | tr -d '\n'\"", "r")
 * four processes, several milliseconds. The application's LIKWID did so at
 * its Init; the shim passes what its configuration holds
 * (get_configuration()->daemonPath). The collector defines popen and
 * pclose, exported (collect_exports.list), so LIKWID's calls reach them
 * through its PLT: that very command, with a path given, reads the path
 * from memory, as the shell prints it (no newline); every other call is
 * libc's. */
#include "collect_accessd.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char likwid_which[] =
    "bash --noprofile -c \"which likwid-accessD 2>/dev/null | tr -d '\n'\"";
static char *given;
static FILE *answer;        /* the stream popen gave for it, until pclose */
static unsigned long answered;

void sl_accessd_give(char *path)
{
    given = path && *path ? path : NULL;
}

unsigned long sl_accessd_answered(void)
{
    return answered;
}

static void *libc_fn(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

FILE *popen(const char *command, const char *type)
{
    if (given && !answer && command && type && strcmp(command, likwid_which) == 0 &&
        strcmp(type, "r") == 0) {
        answer = fmemopen(given, strlen(given), "r");
        if (answer) {
            answered++;
            return answer;
        }
    }
    FILE *(*real)(const char *, const char *);
    void *p = libc_fn("popen");
    memcpy(&real, &p, sizeof p);
    if (!real) {
        errno = ENOSYS;
        return NULL;
    }
    return real(command, type);
}

int pclose(FILE *stream)
{
    if (stream && stream == answer) {
        answer = NULL;
        return fclose(stream) == 0 ? 0 : -1;     /* the exit status of a shell that succeeded */
    }
    int (*real)(FILE *);
    void *p = libc_fn("pclose");
    memcpy(&real, &p, sizeof p);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(stream);
}
