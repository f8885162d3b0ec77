/* The writer's own deadline at a terminating signal (write_deadline.h). */
#include "write_deadline.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "h5write.h"

#define SLURM_KILLWAIT_DEFAULT 30    /* slurm.conf(5) */
#define SLURM_CONF_MAX (4u << 20)

/* KillWait of one slurm.conf; -1 when the file cannot be read, the
 * default when it does not set it. Lines "KillWait=N" (key in any case,
 * blanks around =, comments after #); Include lines are not followed. */
static int killwait_in(const char *path)
{
    char *buf;
    size_t len;
    if (sl_read_file(path, SLURM_CONF_MAX, &buf, &len) != 0)
        return -1;
    int kw = SLURM_KILLWAIT_DEFAULT;
    for (char *line = buf; line && line < buf + len;) {
        char *nl = memchr(line, '\n', (size_t)(buf + len - line));
        if (nl)
            *nl = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = line + strspn(line, " \t");
        if (!strncasecmp(p, "KillWait", 8)) {
            p += 8 + strspn(p + 8, " \t");
            if (*p == '=') {
                char *end;
                long v = strtol(p + 1, &end, 10);
                if (end != p + 1 && v >= 0 && v <= 65533)
                    kw = (int)v;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    free(buf);
    return kw;
}

/* Slurm's KillWait for this node: $SLURM_CONF, else the usual places
 * (a configless node's cache last); *from names the file ("" default). */
static int slurm_killwait(const char **from)
{
    static const char *const places[] = {"/etc/slurm/slurm.conf", "/etc/slurm-llnl/slurm.conf",
                                         "/run/slurm/conf/slurm.conf"};
    const char *env = getenv("SLURM_CONF");
    if (env && env[0] == '/') {
        int kw = killwait_in(env);
        if (kw >= 0) {
            *from = env;
            return kw;
        }
    }
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        int kw = killwait_in(places[i]);
        if (kw >= 0) {
            *from = places[i];
            return kw;
        }
    }
    *from = "";
    return SLURM_KILLWAIT_DEFAULT;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double sl_wd_budget(int64_t signal_ns, double timeout_s, char *why, size_t cap)
{
    double since = signal_ns > 0 ? mono_s() - (double)signal_ns / 1e9 : 0;
    if (since < 0)
        since = 0;
    double left = timeout_s - since;
    snprintf(why, cap, "SCOPE_LIKWID_TIMEOUT, %g s after the signal", timeout_s);
    const char *job = getenv("SLURM_JOB_ID");
    if (job && *job) {
        const char *from;
        int kw = slurm_killwait(&from);
        double half = kw / 2.0;
        if (half - since < left) {
            left = half - since;
            snprintf(why, cap, "half of Slurm's KillWait of %d s (%s%s), %g s after the signal",
                     kw, from[0] ? "slurm.conf " : "its default: no slurm.conf found",
                     from[0] ? from : "", half);
        }
    }
    return left;
}

static char stop_line[1024];
static size_t stop_len;

static void at_deadline(int sig)
{
    (void)sig;
    if (sl_h5_placed())
        return;     /* the result is in place: only its name is left to say */
    const char *tmp = sl_h5_pending_temp();
    if (tmp)
        unlink(tmp);
    ssize_t w = write(STDERR_FILENO, stop_line, stop_len);
    (void)w;
    _exit(1);
}

void sl_wd_arm(double seconds, const char *why, const char *journal)
{
    int n = snprintf(stop_line, sizeof stop_line, "scope-likwid-write: stopped at its deadline "
                     "(%s): nothing written, the journal %s is kept\n", why, journal);
    stop_len = n < 0 ? 0 : (size_t)n < sizeof stop_line ? (size_t)n : sizeof stop_line - 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = at_deadline;
    sigfillset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 0}, {(time_t)seconds, (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6)}};
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
        it.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &it, NULL);
}
