/* scope-likwid run's probe of likwid-perfctr: can it count on this host
 * with the options given, and if not, why (run_perfctr.h). */
#include "run_perfctr.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_spawn.h"
#include "cmds.h"
#include "journal.h"

int sl_wait_code(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return SL_EXIT_FAIL;
}

/* likwid-perfctr 5.x forks the application, stops it (SIGSTOP) and only
 * then sets up the event set; on a bad one it exits 1 and the stopped
 * application stays, an orphan holding whatever descriptors it inherited
 * (a probe's output pipe: a reader waiting for EOF waits forever). run is a
 * child subreaper (PR_SET_CHILD_SUBREAPER): such orphans become run's own
 * children, which it can see, end and reap by pid. */

int sl_run_end_children(int all, int say, pid_t keep)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/self/task/%d/children", (int)getpid());
    FILE *f = fopen(p, "re");
    if (!f)
        return 0;
    int left = 0;
    long child;
    while (fscanf(f, "%ld", &child) == 1) {
        char st = sl_proc_state((pid_t)child);
        if (child == keep)
            continue;
        if (st == 'Z') {
            waitpid((pid_t)child, NULL, WNOHANG);
            continue;
        }
        if (!all && st != 'T' && st != 't') {
            left++;
            continue;
        }
        if (kill((pid_t)child, SIGKILL) == 0) {
            if (say)
                sl_error("run", "ended process %ld, which likwid-perfctr left stopped", child);
            while (waitpid((pid_t)child, NULL, 0) < 0 && errno == EINTR)
                ;
        }
    }
    fclose(f);
    return left;
}

/* Whether pid has exited, without reaping it: its pid (and so its process
 * group's id) stays taken until waitpid, and kill(-pid) reaches only its
 * own group. */
static int has_exited(pid_t pid)
{
    siginfo_t si = {0};
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* How long a probe of likwid-perfctr may take (a healthy one needs well
 * under a second). */
#define PROBE_TIMEOUT_MS 30000

/* Runs argv with stdout and stderr captured into *out (NUL-terminated, at
 * most 64 KiB kept), in a process group of its own. Once argv's process has
 * exited, whatever it left (its group, orphans adopted by run) is killed:
 * nothing it left can hold the pipe open. Returns the exit code; negative
 * errno when it could not be started, -ETIMEDOUT when it did not end within
 * PROBE_TIMEOUT_MS (then it is killed). */
static int run_captured(char *const argv[], char **out)
{
    *out = NULL;
    pid_t pid;
    int fd;
    int rc = sl_spawn_piped(argv[0], 1, argv, 1, &pid, &fd);
    if (rc)
        return rc;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    int exited = 0, timed_out = 0;
    int64_t deadline = sl_now_ms() + PROBE_TIMEOUT_MS;
    for (;;) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int ready = poll(&pfd, 1, 100);
        if (ready > 0) {
            if (!sl_read_kept(fd, buf, cap, &n))
                break;
            continue;
        }
        if (ready < 0 && errno != EINTR)
            break;
        if (!exited && (has_exited(pid) || (timed_out = sl_now_ms() > deadline))) {
            exited = 1;
            kill(-pid, SIGKILL);    /* its group: the application it forked */
            sl_run_end_children(1, 0, pid);    /* and whatever left the group */
        }
    }
    close(fd);
    if (buf)
        buf[n] = '\0';
    *out = buf;
    siginfo_t si;
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
        ;
    kill(-pid, SIGKILL);    /* what it left in its group, before its pid is free */
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -errno;
    sl_run_end_children(1, 0, 0);
    return timed_out ? -ETIMEDOUT : sl_wait_code(st);
}

/* ---- what likwid-perfctr said ---------------------------------------------- */

/* What likwid-perfctr prints about options it cannot use (an unknown group
 * or event, a missing -g, a bad CPU list), in LIKWID 5.2 to 5.5: these say
 * the user's options are wrong, not that LIKWID cannot count here. */
static const char *const option_faults[] = {
    "Cannot read group file",           /* -g NOSUCHGROUP */
    "Cannot read performance group",
    "Cannot transform",
    "Access to performance group",
    "only available with deactivated HyperThreading",
    "not found for current architecture",   /* an event this CPU lacks */
    "not defined for current architecture", /* a counter this CPU lacks */
    "not allowed for event",
    "No event in given event string",
    "Cannot parse event descriptor",
    "Event string contains invalid character",
    "No valid eventset",
    "must be given on commandline",     /* no -g */
    "starts with invalid character",
    "Cannot find domain",               /* -C/-c with a bad domain */
    "Invalid expression",
};

/* A line of likwid-perfctr's output that says why it cannot count. */
static int says_why(const char *l, size_t len)
{
    static const char *const why[] = {"0 counters", "annot", "must", "denied", "ermission",
                                      "nsupported", "not ", "failed"};
    for (size_t i = 0; i < sizeof why / sizeof why[0]; i++)
        if (memmem(l, len, why[i], strlen(why[i])))
            return 1;
    return 0;
}

static int option_fault(const char *l, size_t len)
{
    for (size_t i = 0; i < sizeof option_faults / sizeof option_faults[0]; i++)
        if (memmem(l, len, option_faults[i], strlen(option_faults[i])))
            return 1;
    return 0;
}

/* The line of likwid-perfctr's output that gives the reason: its first
 * line about a wrong option (then *options is set), else its first "ERROR"
 * (the text after "] "), else the first line that says why ("This
 * architecture has 0 counters.", "Cannot get access to MSRs ..."), else the
 * first line that is not a heading of its listings (those end in ':', like
 * the last one, "Event tags (tag, id, umask, counters<, options>):"). */
static void perfctr_reason(const char *out, sl_why *reason, int *options)
{
    const char *opt = NULL, *best = NULL, *hint = NULL, *plain = NULL;
    for (const char *l = out; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        if (len) {
            if (!opt && option_fault(l, len))
                opt = l;
            if (!best && !strncmp(l, "ERROR", 5))
                best = l;
            if (!hint && says_why(l, len))
                hint = l;
            if (!plain && l[len - 1] != ':')
                plain = l;
        }
        l = e ? e + 1 : NULL;
    }
    *options = opt != NULL;
    const char *l = opt ? opt : best ? best : hint ? hint : plain;
    if (!l) {
        sl_why_add(reason, "no output");
        return;
    }
    size_t len = strcspn(l, "\n");
    const char *p = memmem(l, len, "] ", 2);
    if (p && !strncmp(l, "ERROR", 5)) {
        len -= (size_t)(p + 2 - l);
        l = p + 2;
    }
    sl_why_addn(reason, len, "%s", l);
}

static sl_perfctr_verdict probe_failed(int rc, const char *perfctr, const char *out, sl_why *reason)
{
    int options = 0;
    if (rc == -ETIMEDOUT)
        sl_why_add(reason, "%s did not end within %d s", perfctr, PROBE_TIMEOUT_MS / 1000);
    else if (rc < 0)
        sl_why_add(reason, "cannot run %s: %s", perfctr, strerror(-rc));
    else
        perfctr_reason(out, reason, &options);
    return options ? SL_PERFCTR_OPTIONS : SL_PERFCTR_CANNOT;
}

sl_perfctr_verdict sl_perfctr_works(const char *perfctr, char **opts, int nopts, sl_why *reason)
{
    char *out = NULL;
    char *probe1[] = {(char *)perfctr, "-e", NULL};
    int rc = run_captured(probe1, &out);
    if (rc != 0 || (out && (strstr(out, "ERROR") || strstr(out, "has 0 counters") ||
                            strstr(out, "Cannot get access")))) {
        sl_perfctr_verdict v = probe_failed(rc, perfctr, out, reason);
        free(out);
        return v == SL_PERFCTR_OPTIONS ? SL_PERFCTR_CANNOT : v;   /* -e has no options */
    }
    free(out);
    /* the real options on a trivial program: catches a missing -g, an
     * unknown group or event, MSR access, events that cannot be set up */
    char **probe2 = calloc((size_t)nopts + 3, sizeof *probe2);
    if (!probe2) {
        sl_why_add(reason, "out of memory");
        return SL_PERFCTR_CANNOT;
    }
    probe2[0] = (char *)perfctr;
    for (int i = 0; i < nopts; i++)
        probe2[1 + i] = opts[i];
    probe2[1 + nopts] = "true";
    rc = run_captured(probe2, &out);
    free(probe2);
    sl_perfctr_verdict v = SL_PERFCTR_COUNTS;
    if (rc != 0 || (out && (strstr(out, "ERROR") || strstr(out, "Setup of event"))))
        v = probe_failed(rc, perfctr, out, reason);
    free(out);
    return v;
}
