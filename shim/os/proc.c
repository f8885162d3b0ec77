/* /proc/self/status: the umask, the seccomp state, a sandbox entered
 * since Init. */
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* ---- what the process may do ---- */

typedef struct seccomp_state {
    long mode, filters;
} seccomp_state;

/* The value of a "Name:\tvalue" line of /proc/self/status (base 10, or 8
 * for Umask), -1 when the line is another. */
static long field_value(const char *line, size_t n, const char *name, int base)
{
    size_t k = strlen(name);
    if (n <= k || memcmp(line, name, k) != 0)
        return -1;
    long v = 0;
    int digits = 0;
    for (size_t i = k; i < n; i++) {
        if (line[i] >= '0' && line[i] < '0' + base) {
            v = v * base + (line[i] - '0');
            digits++;
        } else if (digits) {
            break;
        }
    }
    return digits ? v : -1;
}

/* Fields of /proc/self/status (values[i] -1: not there, or no /proc).
 * Scanned line by line through a small buffer: async-signal-safe, and a
 * long line (Mems_allowed on a large machine) is skipped, not cut. */
static void status_fields(const char *const *names, const int *bases, long *values, int n)
{
    for (int i = 0; i < n; i++)
        values[i] = -1;
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char chunk[256], head[32];
    size_t col = 0;
    ssize_t r;
    while ((r = read(fd, chunk, sizeof chunk)) > 0 || (r < 0 && errno == EINTR))
        for (ssize_t i = 0; i < r; i++) {
            if (chunk[i] != '\n') {
                if (col < sizeof head)
                    head[col] = chunk[i];
                col++;
                continue;
            }
            size_t len = col < sizeof head ? col : sizeof head;
            for (int f = 0; f < n; f++) {
                long v = field_value(head, len, names[f], bases[f]);
                if (v >= 0)
                    values[f] = v;
            }
            col = 0;
        }
    close(fd);
}

/* The seccomp mode and filter count (filters -1: the kernel does not say,
 * before 5.9), else PR_GET_SECCOMP. */
static seccomp_state seccomp_now(void)
{
    static const char *const names[] = {"Seccomp:", "Seccomp_filters:"};
    static const int bases[] = {10, 10};
    long v[2];
    status_fields(names, bases, v, 2);
    seccomp_state s = {v[0], v[1]};
    if (s.mode < 0) {   /* no /proc (a chroot, a container without it) */
        int m = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
        s.mode = m > 0 ? m : 0;
    }
    return s;
}

long sl_proc_umask(void)
{
    static const char *const names[] = {"Umask:"};
    static const int bases[] = {8};
    long v;
    int saved = errno;
    status_fields(names, bases, &v, 1);
    errno = saved;
    return v;
}

void sl_seccomp_read(long *mode, long *filters)
{
    int saved = errno;
    seccomp_state s = seccomp_now();
    errno = saved;
    *mode = s.mode;
    *filters = s.filters;
}

static seccomp_state at_init = {-1, -1};

void sl_sandbox_note(void)
{
    int saved = errno;
    if (at_init.mode < 0)
        at_init = seccomp_now();
    errno = saved;
}

int sl_sandbox_since_init(void)
{
    if (at_init.mode < 0)
        return 0;       /* never noted: no Init, nothing to compare */
    int saved = errno;
    seccomp_state now = seccomp_now();
    errno = saved;
    if (now.mode > at_init.mode)
        return 1;
    return now.filters >= 0 && at_init.filters >= 0 && now.filters > at_init.filters;
}
