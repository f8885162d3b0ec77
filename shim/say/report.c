/* `scope-likwid run`'s report file: one line per file this process made. */
#include "say.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

/* SCOPE_LIKWID_RUN_REPORT as it was at Init: the file `scope-likwid run`
 * created to learn what this process wrote (say.h). */
static char *run_report;
/* Held from a change of user on (sl_run_report_hold): the file is run's
 * user's, whom the process may no longer be. */
static _Atomic int report_fd = -1;
static dev_t report_dev;
static ino_t report_ino;

void sl_run_report_take(const char *v)
{
    free(run_report);
    run_report = v && v[0] == '/' ? strdup(v) : NULL;
}

void sl_run_report_hold(void)
{
    struct stat st;
    int fd = run_report && atomic_load(&report_fd) < 0
                 ? sl_at_open(run_report, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0)
                 : -1;
    if (fd < 0)
        return;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 64);
    if (high >= 0) {
        close(fd);
        fd = high;
    }
    if (fstat(fd, &st) != 0) {
        close(fd);
        return;
    }
    report_dev = st.st_dev;
    report_ino = st.st_ino;
    atomic_store(&report_fd, fd);
}

void sl_run_report(const char *kind, const char *path)
{
    if (!run_report || !path || !path[0])
        return;
    int saved = errno;
    /* appended, never created: run made the file and reads it after the
     * application; one writev of a line is one append */
    int held = atomic_load(&report_fd);
    struct stat st;
    if (held >= 0 && (fstat(held, &st) != 0 || st.st_dev != report_dev || st.st_ino != report_ino))
        held = -1;      /* closed by the application: by name, as far as that goes */
    int fd = held >= 0 ? held
                       : sl_at_open(run_report, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0);
    if (fd >= 0) {
        /* "\tPID\t", without stdio: the signal handler reports too */
        char pid[24];
        size_t n = sizeof pid;
        pid[--n] = '\t';
        unsigned long long v = (unsigned long long)getpid();
        do
            pid[--n] = (char)('0' + v % 10);
        while ((v /= 10) && n > 1);
        pid[--n] = '\t';
        struct iovec iov[] = {{(void *)kind, strlen(kind)},
                              {pid + n, sizeof pid - n},
                              {(void *)path, strlen(path)},
                              {"\n", 1}};
        ssize_t w = writev(fd, iov, 4);
        (void)w;    /* nothing to do about it: run then says it has no answer */
        if (fd != held)
            close(fd);
    }
    errno = saved;
}
