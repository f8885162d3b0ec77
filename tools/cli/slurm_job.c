/* Whether a Slurm job step has ended, asked of Slurm (slurm_job.h). */
#include "slurm_job.h"

#include "cli_spawn.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ASK_MS 20000        /* squeue and sacct wait MessageTimeout (10 s) at most */
#define OUT_MAX 65536

/* Runs argv (found in PATH's absolute directories) with stdout and stderr
 * into *out (NUL-terminated, at most OUT_MAX bytes); its exit code, or
 * -errno (-ENOENT: not found), -ETIMEDOUT after ASK_MS (it is killed). */
static int ask(char *const argv[], char **out)
{
    *out = NULL;
    const char *path = getenv("PATH");
    char exe[4096] = "";
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        /* absolute entries only: never a program of the working directory */
        if (p[0] == '/' && n + strlen(argv[0]) + 2 < sizeof exe) {
            snprintf(exe, sizeof exe, "%.*s/%s", (int)n, p, argv[0]);
            if (access(exe, X_OK) == 0)
                break;
        }
        exe[0] = '\0';
        p += n + (p[n] == ':');
    }
    if (!exe[0])
        return -ENOENT;
    pid_t pid;
    int fd;
    int rc = sl_spawn_piped(exe, 0, argv, 0, &pid, &fd);
    if (rc)
        return rc;
    char *buf = malloc(OUT_MAX + 1);
    size_t n = 0;
    int timed_out = 0;
    long long deadline = sl_now_ms() + ASK_MS;
    for (;;) {
        long long left = deadline - sl_now_ms();
        if (left <= 0) {
            timed_out = 1;
            kill(pid, SIGKILL);
            break;
        }
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int ready = poll(&pf, 1, (int)(left < 1000 ? left : 1000));
        if (ready < 0 && errno != EINTR)
            break;
        if (ready <= 0)
            continue;
        if (!sl_read_kept(fd, buf, OUT_MAX, &n))
            break;
    }
    close(fd);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (buf)
        buf[n] = '\0';
    *out = buf;
    if (timed_out)
        return -ETIMEDOUT;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The last non-empty line of s (the fatal one of an error), for a
 * message (in place). */
static const char *last_line(char *s)
{
    if (!s)
        return "";
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
        s[--n] = '\0';
    char *nl = strrchr(s, '\n');
    return nl ? nl + 1 : s;
}

/* Whether text lists the step id (one per line, as squeue -o %i prints). */
static int lists(const char *text, const char *id)
{
    size_t n = strlen(id);
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n");
        const char *s = p;
        while (len && (*s == ' ' || *s == '\t'))
            s++, len--;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\r'))
            len--;
        if (len == n && !memcmp(s, id, n))
            return 1;
        p += strcspn(p, "\n");
        p += *p == '\n';
    }
    return 0;
}

/* Slurm's job states after which no process of the job runs. */
static int ended_state(const char *s)
{
    static const char *const done[] = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT",
                                       "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
                                       "BOOT_FAIL", "DEADLINE", "REVOKED"};
    for (size_t i = 0; i < sizeof done / sizeof done[0]; i++)
        if (!strncmp(s, done[i], strlen(done[i])))
            return 1;
    return 0;
}

/* A job the controller no longer holds (it ended more than MinJobAge ago,
 * or is of another cluster): only accounting can say, and only for the
 * journal's own cluster. */
static int ask_accounting(const char *cluster, const char *job, char *why, size_t cap)
{
    if (!cluster[0]) {
        snprintf(why, cap, "squeue does not know job %s, and the journal names no cluster to ask "
                 "sacct about", job);
        return SL_SLURM_UNKNOWN;
    }
    char *argv[] = {"sacct", "-n", "-P", "-X", "-o", "State", "-j", (char *)job, "-M",
                    (char *)cluster, NULL};
    char *out = NULL;
    int rc = ask(argv, &out);
    int verdict = SL_SLURM_UNKNOWN;
    if (rc == 0 && out && ended_state(out)) {
        snprintf(why, cap, "sacct says job %s of cluster %s is %s", job, cluster, last_line(out));
        verdict = SL_SLURM_ENDED;
    } else if (rc == 0 && out && out[0]) {
        snprintf(why, cap, "sacct says job %s of cluster %s is %s", job, cluster, last_line(out));
        verdict = SL_SLURM_RUNS;
    } else {
        snprintf(why, cap, "squeue does not know job %s and sacct cannot tell (%s)", job,
                 rc == -ENOENT ? "no sacct in PATH"
                 : rc == -ETIMEDOUT ? "no answer in 20 s"
                 : out && out[0] ? last_line(out) : "no answer");
    }
    free(out);
    return verdict;
}

/* The cluster squeue answers for: the job's own SLURM_CLUSTER_NAME, else
 * ClusterName of `scontrol show config`; "" unknown. */
static void local_cluster(char *name, size_t cap)
{
    name[0] = '\0';
    const char *env = getenv("SLURM_CLUSTER_NAME");
    if (env && *env) {
        snprintf(name, cap, "%s", env);
        return;
    }
    char *argv[] = {"scontrol", "show", "config", NULL};
    char *out = NULL;
    const char *at = ask(argv, &out) == 0 && out ? strstr(out, "\nClusterName") : NULL;
    if (at && (at = strchr(at, '=')))
        snprintf(name, cap, "%.*s", (int)strcspn(at + 1 + strspn(at + 1, " "), " \n"),
                 at + 1 + strspn(at + 1, " "));
    free(out);
}

int sl_slurm_step_ended(const char *cluster, const char *job, const char *step, char *why,
                        size_t cap)
{
    char here[128];
    local_cluster(here, sizeof here);
    if (cluster[0] && here[0] && strcmp(cluster, here) != 0) {
        snprintf(why, cap, "its job %s is of Slurm cluster %s, not of this one (%s)", job,
                 cluster, here);
        return SL_SLURM_UNKNOWN;
    }
    char *argv[] = {"squeue", "-h", "-s", "-j", (char *)job, "-o", "%i", NULL};
    char *out = NULL;
    int rc = ask(argv, &out);
    char id[128];
    snprintf(id, sizeof id, "%s.%s", job, step[0] ? step : "batch");
    int verdict;
    if (rc == 0 && out) {
        /* Running steps, one per line. A journal of no step (the batch
         * script, an salloc shell) ends with the job: any step listed is
         * the job running. */
        int runs = step[0] ? lists(out, id) : out[strspn(out, " \n")] != '\0';
        if (runs)
            snprintf(why, cap, "Slurm says %s %s still runs", step[0] ? "step" : "job",
                     step[0] ? id : job);
        else
            snprintf(why, cap, "Slurm says %s %s has ended", step[0] ? "step" : "job",
                     step[0] ? id : job);
        verdict = runs ? SL_SLURM_RUNS : SL_SLURM_ENDED;
    } else if (rc > 0 && out && strstr(out, "Invalid job id")) {
        verdict = ask_accounting(cluster, job, why, cap);
    } else {
        snprintf(why, cap, "Slurm cannot tell whether job %s ended (%s)", job,
                 rc == -ENOENT ? "no squeue in PATH"
                 : rc == -ETIMEDOUT ? "squeue: no answer in 20 s"
                 : out && out[0] ? last_line(out) : "squeue failed");
        verdict = SL_SLURM_UNKNOWN;
    }
    free(out);
    return verdict;
}
