/* scope-likwid run: runs an application with the shim preloaded, under
 * `likwid-perfctr -m` when LIKWID can count on this host, and says where
 * the result went. */
#include "journal.h"
#include "cmds.h"
#include "recover.h"
#include "why.h"
#include "fileio.h"
#include "provenance.h"
#include "helper_host.h"
#include "run_host.h"
#include "vec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#ifndef SL_BINDIR_TO_LIBDIR
#define SL_BINDIR_TO_LIBDIR "../lib"
#endif
#define SHIM_NAME "libscope_likwid.so"
#define RUN_PREFIX "scope-likwid-run-"

static const char usage[] =
    "usage: scope-likwid run [likwid-perfctr options] -- APP [ARGS]\n"
    "\n"
    "Runs APP with the scope-likwid shim preloaded (LD_PRELOAD, in front of\n"
    "any value already set; likwid-perfctr's pinning library stays). When\n"
    "likwid-perfctr works on this host with the given options, APP runs as\n"
    "`likwid-perfctr OPTIONS -m APP ARGS`; otherwise scope-likwid says why\n"
    "and runs APP directly (timing only). To find out, it runs\n"
    "`likwid-perfctr -e` and `likwid-perfctr OPTIONS true` first.\n"
    "\n"
    "The result file is SCOPE_LIKWID_OUTPUT when set, else\n"
    "./scope-likwid-run-<PID>.h5 (in a batch job scope-likwid-run-<JOB>-<PID>.h5),\n"
    "PID being the process of APP that calls likwid_markerInit; as one rank\n"
    "of a launch (mpirun, srun) ./scope-likwid-rank<R>.h5 (in a batch job\n"
    "scope-likwid-<JOB>-rank<R>.h5), as the shim names rank files. A name\n"
    "that is taken gets .1, .2, ... before .h5 (never overwritten).\n"
    "After APP exits, one line names each file its processes wrote. The\n"
    "shim's helper processes (collector, writer) run as run's children, not\n"
    "APP's.\n"
    "\n"
    "Environment:\n"
    "  SCOPE_LIKWID_PERFCTR   likwid-perfctr program to use (default\n"
    "                         likwid-perfctr on PATH; \"none\": never use it)\n"
    "  SCOPE_LIKWID_SHIM      path of libscope_likwid.so (default: found next\n"
    "                         to this program)\n"
    "  SCOPE_LIKWID_OUTPUT, SCOPE_LIKWID_DISABLE, ...: read by the shim\n"
    "\n"
    "  -h, --help   this help (only as the first word: every other word\n"
    "               before '--' is passed to likwid-perfctr as it is)\n"
    "\n"
    "Exit status: APP's (128+N when killed by signal N); 127 when APP is not\n"
    "found, 126 when it is found but cannot be executed; 1 when the shim is\n"
    "not found; 2 usage error.\n";

/* ---- child processes ------------------------------------------------------ */

static int status_code(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return SL_EXIT_FAIL;
}

/* ---- what likwid-perfctr leaves behind ------------------------------------ */

/* likwid-perfctr 5.x forks the application, stops it (SIGSTOP) and only
 * then sets up the event set; on a bad one it exits 1 and the stopped
 * application stays, an orphan holding whatever descriptors it inherited
 * (a probe's output pipe: a reader waiting for EOF waits forever). run is a
 * child subreaper (PR_SET_CHILD_SUBREAPER): such orphans become run's own
 * children, which it can see, end and reap by pid. */


/* Ends run's children (orphans adopted as subreaper, run's own leftover
 * probes): every one (all) or the stopped ones but `keep`, and reaps them
 * and every exited one but `keep`. Names each one ended on stderr when
 * `say` is set. Returns how many children are left (not ended, not
 * zombies). */
static int end_children(int all, int say, pid_t keep)
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

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
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
    int fd[2];
    if (pipe2(fd, O_CLOEXEC) < 0)
        return -errno;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(fd[1]);
    if (rc) {
        close(fd[0]);
        return -rc;
    }
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    char sink[4096];
    int exited = 0, timed_out = 0;
    int64_t deadline = now_ms() + PROBE_TIMEOUT_MS;
    for (;;) {
        struct pollfd pfd = {.fd = fd[0], .events = POLLIN};
        int ready = poll(&pfd, 1, 100);
        if (ready > 0) {
            ssize_t r = buf && n < cap ? read(fd[0], buf + n, cap - n)
                                       : read(fd[0], sink, sizeof sink);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            if (buf && n < cap)
                n += (size_t)r;
            continue;
        }
        if (ready < 0 && errno != EINTR)
            break;
        if (!exited && (has_exited(pid) || (timed_out = now_ms() > deadline))) {
            exited = 1;
            kill(-pid, SIGKILL);    /* its group: the application it forked */
            end_children(1, 0, pid);    /* and whatever left the group */
        }
    }
    close(fd[0]);
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
    end_children(1, 0, 0);
    return timed_out ? -ETIMEDOUT : status_code(st);
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

/* What the probes found. */
typedef enum perfctr_verdict {
    PERFCTR_COUNTS,     /* use it */
    PERFCTR_CANNOT,     /* LIKWID cannot count on this host */
    PERFCTR_OPTIONS,    /* it refuses the options given */
} perfctr_verdict;

static perfctr_verdict probe_failed(int rc, const char *perfctr, const char *out, sl_why *reason)
{
    int options = 0;
    if (rc == -ETIMEDOUT)
        sl_why_add(reason, "%s did not end within %d s", perfctr, PROBE_TIMEOUT_MS / 1000);
    else if (rc < 0)
        sl_why_add(reason, "cannot run %s: %s", perfctr, strerror(-rc));
    else
        perfctr_reason(out, reason, &options);
    return options ? PERFCTR_OPTIONS : PERFCTR_CANNOT;
}

/* Whether likwid-perfctr can count here with these options, by what it
 * printed; else why. Exiting 0 is not enough: an unsupported CPU, MSRs it
 * cannot read and (5.5, perf_event) events it cannot set up still exit 0,
 * with an ERROR line. */
static perfctr_verdict perfctr_works(const char *perfctr, char **opts, int nopts, sl_why *reason)
{
    char *out = NULL;
    char *probe1[] = {(char *)perfctr, "-e", NULL};
    int rc = run_captured(probe1, &out);
    if (rc != 0 || (out && (strstr(out, "ERROR") || strstr(out, "has 0 counters") ||
                            strstr(out, "Cannot get access")))) {
        perfctr_verdict v = probe_failed(rc, perfctr, out, reason);
        free(out);
        return v == PERFCTR_OPTIONS ? PERFCTR_CANNOT : v;   /* -e has no options */
    }
    free(out);
    /* the real options on a trivial program: catches a missing -g, an
     * unknown group or event, MSR access, events that cannot be set up */
    char **probe2 = calloc((size_t)nopts + 3, sizeof *probe2);
    if (!probe2) {
        sl_why_add(reason, "out of memory");
        return PERFCTR_CANNOT;
    }
    probe2[0] = (char *)perfctr;
    for (int i = 0; i < nopts; i++)
        probe2[1 + i] = opts[i];
    probe2[1 + nopts] = "true";
    rc = run_captured(probe2, &out);
    free(probe2);
    perfctr_verdict v = PERFCTR_COUNTS;
    if (rc != 0 || (out && (strstr(out, "ERROR") || strstr(out, "Setup of event"))))
        v = probe_failed(rc, perfctr, out, reason);
    free(out);
    return v;
}

/* ---- where things are ----------------------------------------------------- */

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

char *sl_find_shim(char *looked, size_t size)
{
    const char *env = getenv("SCOPE_LIKWID_SHIM");
    if (env && *env) {
        snprintf(looked, size, "%s (SCOPE_LIKWID_SHIM)", env);
        return is_file(env) ? realpath(env, NULL) : NULL;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(looked, size, "/proc/self/exe unreadable");
        return NULL;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    static const char *const rel[] = {"../shim", SL_BINDIR_TO_LIBDIR};
    looked[0] = '\0';
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "%s/%s/" SHIM_NAME, exe, rel[i]);
        size_t used = strlen(looked);
        snprintf(looked + used, size - used, "%s%s", used ? ", " : "", p);
        if (is_file(p))
            return realpath(p, NULL);
    }
    return NULL;
}

/* '%' is special in SCOPE_LIKWID_OUTPUT templates. */
static char *escape_percent(const char *s)
{
    char *out = malloc(2 * strlen(s) + 1), *o = out;
    if (!out)
        return NULL;
    for (; *s; s++) {
        if (*s == '%')
            *o++ = '%';
        *o++ = *s;
    }
    *o = '\0';
    return out;
}

/* Whether run is one rank of a parallel launch (mpirun, srun's tasks, ...):
 * a rank in the environment, in a world of more than one. The variables
 * are the shim's (sl_rank_from_env, sl_world_size_from_env): there the
 * rank files are scope-likwid-rank<R>.h5, the names a job's merge takes. */
static int launched_rank(void)
{
    static const char *const ranks[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                        "SLURM_PROCID", "MV2_COMM_WORLD_RANK", "MPI_LOCALRANKID",
                                        "ALPS_APP_PE", "PALS_RANKID"};
    static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                        "SLURM_NTASKS", "MV2_COMM_WORLD_SIZE", "PALS_SIZE",
                                        "OMPI_MCA_orte_ess_num_procs"};
    const char *step = getenv("SLURM_STEP_ID");
    int in_step = step && *step; /* Slurm's task variables name a task only in a step */
    int rank = 0;
    for (size_t i = 0; !rank && i < sizeof ranks / sizeof ranks[0]; i++) {
        const char *v = getenv(ranks[i]);
        rank = v && *v >= '0' && *v <= '9' && (in_step || strncmp(ranks[i], "SLURM_", 6));
    }
    for (size_t i = 0; rank && i < sizeof sizes / sizeof sizes[0]; i++) {
        const char *v = getenv(sizes[i]);
        if (v && *v && (in_step || strncmp(sizes[i], "SLURM_", 6)))
            return strtol(v, NULL, 10) != 1;
    }
    const char *ess = getenv("OMPI_MCA_ess");
    return rank && !(ess && !strcmp(ess, "singleton"));
}

/* ---- what the application's processes wrote ------------------------------ */

/* The file the shim reports to (SCOPE_LIKWID_RUN_REPORT; shim.h, "run's
 * report"): empty, owner-only, in TMPDIR or /tmp; NULL when none can be
 * made. Each `scope-likwid run` has its own: under mpirun each rank's run
 * hears of its own processes only. */
static char *report_create(void)
{
    const char *tmp = getenv("TMPDIR");
    const char *dirs[] = {tmp && tmp[0] == '/' ? tmp : NULL, "/tmp"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char *p = NULL;
        if (!dirs[i] || asprintf(&p, "%s/scope-likwid-run-report.XXXXXX", dirs[i]) < 0)
            continue;
        int fd = mkstemp(p);
        if (fd >= 0) {
            close(fd);
            return p;
        }
        free(p);
    }
    return NULL;
}

/* One line of the report: KIND \t PID \t PATH; 0 when it is not one. */
static int report_line(char *l, const char **kind, long *pid, const char **path)
{
    char *t1 = strchr(l, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    if (!t2 || !t2[1])
        return 0;
    *t1 = *t2 = '\0';
    char *end;
    *pid = strtol(t1 + 1, &end, 10);
    *kind = l;
    *path = t2 + 1;
    return end != t1 + 1 && !*end;
}

/* A process of APP that said it started timing (Init), and what became of
 * it. */
typedef struct started_proc {
    long pid;
    const char *output, *journal;   /* in the report's text; journal NULL: none */
    int done;                       /* it wrote a result or a rescue file */
} started_proc;

/* The latest process of that pid still without a result (a pid that
 * called exec starts again under the same pid). */
static started_proc *open_proc(started_proc *v, size_t n, long pid)
{
    for (size_t i = n; i-- > 0;)
        if (v[i].pid == pid && !v[i].done)
            return &v[i];
    return NULL;
}

/* Says what the application's processes wrote, from the report: one line
 * per result file ("result in"), per rescue file; the journal of a process
 * that wrote neither (killed, crashed) is recovered, and one without a
 * journal is named. Returns how many processes started timing. */
/* Whether process pid left a batch file (the one copy of its calls when
 * it had no journal: batch_left makes its result). */
static int batch_of(const started_proc *batches, size_t n, long pid)
{
    for (size_t i = 0; i < n; i++)
        if (batches[i].pid == pid && access(batches[i].output, F_OK) == 0)
            return 1;
    return 0;
}

/* A batch of Init..Close cycles whose process ended before the batch's
 * Close (killed, or between cycles) left its batch file (SHIM.md,
 * "Several Init..Close cycles"): it becomes the result it names. A process
 * that still runs (a daemon) delivers its batch itself. */
static void batch_left(long pid, const char *path)
{
    static const char suffix[] = ".batch.rescue";
    size_t len = strlen(path);
    if (access(path, F_OK) != 0 || len <= sizeof suffix - 1 ||
        strcmp(path + len - (sizeof suffix - 1), suffix) != 0)
        return;     /* delivered (or not a batch file's name) */
    if (kill((pid_t)pid, 0) == 0 || errno == EPERM) {
        sl_error("run", "process %ld still runs: its Init..Close cycles since its last result "
                 "are in %s until it delivers them", pid, path);
        return;
    }
    char *output = strndup(path, len - (sizeof suffix - 1));
    char *written = NULL;
    int rc = output ? sl_rescue_to_result(path, output, &written) : -ENOMEM;
    if (rc == 0) {
        unlink(path);
        sl_error("run", "result in %s (Init..Close cycles of process %ld, from the batch file it "
                 "left: it ended before the batch's Close)", written ? written : output, pid);
    } else {
        sl_error("run", "%s: the batch file of process %ld could not be turned into a result "
                 "(%s): convert it with 'scope-likwid convert %s -o %s'", path, pid,
                 strerror(-rc), path, output ? output : "OUTPUT.h5");
    }
    free(written);
    free(output);
}

static size_t report_results(const char *report, int wait_status)
{
    char *text = NULL;
    size_t len = 0;
    if (sl_read_file(report, (size_t)1 << 24, &text, &len) != 0)
        return 0;
    started_proc *procs = NULL, *batches = NULL;
    size_t n = 0, cap = 0, nbatch = 0, batch_cap = 0;
    for (char *l = text, *e; l && *l; l = e ? e + 1 : NULL) {
        e = strchr(l, '\n');
        if (e)
            *e = '\0';
        const char *kind, *path;
        long pid;
        if (!report_line(l, &kind, &pid, &path))
            continue;
        started_proc *p = open_proc(procs, n, pid);
        if (!strcmp(kind, "batch")) {
            if (SL_VEC_RESERVE(batches, batch_cap, nbatch, 1) == 0)
                batches[nbatch++] = (started_proc){pid, path, NULL, 0};
            continue;
        }
        if (!strcmp(kind, "init")) {
            if (SL_VEC_RESERVE(procs, cap, n, 1) == 0)
                procs[n++] = (started_proc){pid, path, NULL, 0};
            continue;
        }
        if (!strcmp(kind, "journal")) {
            if (p)
                p->journal = path;
            continue;
        }
        if (p)
            p->done = 1;
        struct stat st;
        /* another name than the one asked for: that one is taken */
        int taken = p && strcmp(p->output, path) != 0 && stat(p->output, &st) == 0;
        if (!strcmp(kind, "wrote") && stat(path, &st) == 0 && taken)
            sl_error("run", "result in %s (%s exists: never overwritten)", path, p->output);
        else if (!strcmp(kind, "wrote") && stat(path, &st) == 0)
            sl_error("run", "result in %s", path);
        else if (!strcmp(kind, "rescue") && stat(path, &st) == 0)
            sl_error("run", "no result file written; the timing is in %s (the line above says "
                     "how to convert it)", path);
    }
    char why[128];
    if (WIFSIGNALED(wait_status))
        snprintf(why, sizeof why, "was killed by signal %d (%s)", WTERMSIG(wait_status),
                 strsignal(WTERMSIG(wait_status)));
    else
        snprintf(why, sizeof why, "ended without likwid_markerClose");
    for (size_t i = 0; i < n; i++) {
        if (procs[i].done)
            continue;
        /* a batch's journal replaces its batch file (recover removes it) */
        if (procs[i].journal && access(procs[i].journal, F_OK) == 0)
            sl_recover_journal(procs[i].journal, why);
        else if (!batch_of(batches, nbatch, procs[i].pid))
            sl_error("run", "process %ld ended without writing %s and left no journal", procs[i].pid,
                     procs[i].output);
    }
    for (size_t i = 0; i < nbatch; i++)
        batch_left(batches[i].pid, batches[i].output);
    free(batches);
    free(procs);
    free(text);
    return n;
}

/* ---- command -------------------------------------------------------------- */

int sl_cmd_run(int argc, char **argv)
{
    /* run's own option only as the first word: likwid-perfctr's options
     * (whatever they are) pass through to '--' unparsed */
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(usage, stdout);
        return SL_EXIT_OK;
    }
    if (argc < 2)
        return sl_usage_error("run", "missing '-- APP'");
    /* options end at "--"; without one, the first non-option is APP */
    int app = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            app = i + 1;
            break;
        }
    }
    int nopts;
    if (app < 0) {
        if (argv[1][0] == '-')
            return sl_usage_error("run", "missing '--' between likwid-perfctr options and APP");
        app = 1;
        nopts = 0;
    } else {
        nopts = app - 2;
    }
    if (app >= argc)
        return sl_usage_error("run", "missing APP after '--'");
    char **opts = argv + 1;

    char looked[3 * PATH_MAX];
    char *shim = sl_find_shim(looked, sizeof looked);
    if (!shim) {
        sl_error("run", "cannot find " SHIM_NAME " (looked at %s): "
                 "expected an installed or built shim", looked);
        return SL_EXIT_FAIL;
    }

    /* likwid-perfctr or not */
    const char *perfctr = getenv("SCOPE_LIKWID_PERFCTR");
    if (!perfctr || !*perfctr)
        perfctr = "likwid-perfctr";
    char reason_buf[256];
    sl_why reason;
    sl_why_in(&reason, reason_buf, sizeof reason_buf);
    /* what likwid-perfctr leaves behind becomes ours to end (above) */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    perfctr_verdict verdict;
    if (!strcmp(perfctr, "none")) {
        verdict = PERFCTR_CANNOT;
        sl_why_add(&reason, "SCOPE_LIKWID_PERFCTR=none");
    } else {
        verdict = perfctr_works(perfctr, opts, nopts, &reason);
    }
    int use_perfctr = verdict == PERFCTR_COUNTS;
    if (verdict == PERFCTR_OPTIONS)
        sl_error("run", "likwid-perfctr refuses the options given before '--' (%s): running "
                 "%s without likwid-perfctr; timing only", sl_why_text(&reason), argv[app]);
    else if (verdict == PERFCTR_CANNOT)
        sl_error("run", "LIKWID cannot count on this host (%s): running %s without "
                 "likwid-perfctr; timing only", sl_why_text(&reason), argv[app]);

    /* environment: LD_PRELOAD and the output path */
    const char *old_preload = getenv("LD_PRELOAD");
    char *preload;
    if (old_preload && *old_preload) {
        size_t n = strlen(shim) + strlen(old_preload) + 2;
        preload = malloc(n);
        if (preload)
            snprintf(preload, n, "%s:%s", shim, old_preload);
    } else {
        preload = strdup(shim);
    }
    const char *user_output = getenv("SCOPE_LIKWID_OUTPUT");
    char cwd[PATH_MAX];
    char *output_tmpl = NULL;
    const char *shown = NULL; /* the default name, as the no-result line says it */
    if (!user_output || !*user_output) {
        if (!getcwd(cwd, sizeof cwd))
            snprintf(cwd, sizeof cwd, ".");
        /* %p: the pid of APP's process that writes, which run cannot know
         * beforehand (under likwid-perfctr APP is its grandchild); a rank's
         * file by its rank, as the shim names it under a launcher; %j in a
         * batch job, so that reruns never collide */
        int job = sl_job_from_env() != NULL, rank = launched_rank();
        const char *name = rank ? (job ? "scope-likwid-%j-rank%r" : "scope-likwid-rank%r")
                                : (job ? RUN_PREFIX "%j-%p" : RUN_PREFIX "%p");
        shown = rank ? (job ? "scope-likwid-<JOB>-rank<R>.h5" : "scope-likwid-rank<R>.h5")
                     : (job ? RUN_PREFIX "<JOB>-<PID>.h5" : RUN_PREFIX "<PID>.h5");
        char *dir = escape_percent(cwd);
        if (dir && asprintf(&output_tmpl, "%s/%s.h5", dir, name) < 0)
            output_tmpl = NULL;
        free(dir);
    }
    char *report = report_create();
    if (!report)
        sl_error("run", "cannot create a file in TMPDIR or /tmp to learn the result's name "
                 "(%s): the shim's own line names it", strerror(errno));
    if (!preload || (!user_output && !output_tmpl) || setenv("LD_PRELOAD", preload, 1) ||
        (output_tmpl && setenv("SCOPE_LIKWID_OUTPUT", output_tmpl, 1)) ||
        (report && setenv("SCOPE_LIKWID_RUN_REPORT", report, 1))) {
        sl_error("run", "out of memory");
        free(shim);
        free(preload);
        free(output_tmpl);
        if (report)
            unlink(report);
        free(report);
        return SL_EXIT_FAIL;
    }
    free(preload);
    free(output_tmpl);
    free(shim);

    /* the command line */
    int nargs = argc - app;
    char **cmd = calloc((size_t)(nopts + nargs + 3), sizeof *cmd);
    if (!cmd) {
        sl_error("run", "out of memory");
        if (report)
            unlink(report);
        free(report);
        return SL_EXIT_FAIL;
    }
    int c = 0;
    if (use_perfctr) {
        int has_m = 0;
        cmd[c++] = (char *)perfctr;
        for (int i = 0; i < nopts; i++) {
            has_m |= !strcmp(opts[i], "-m") || !strcmp(opts[i], "--marker");
            cmd[c++] = opts[i];
        }
        if (!has_m)
            cmd[c++] = "-m";
    }
    for (int i = 0; i < nargs; i++)
        cmd[c++] = argv[app + i];
    cmd[c] = NULL;

    /* like system(): the terminal's ^C goes to the child; we stay to report */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGQUIT);
    posix_spawnattr_setsigdefault(&attr, &def);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);

    /* the helpers of APP's shim become run's children, not APP's */
    char host_name[108], host_key[SL_MAC_HEX + 1];
    int host_control = -1;
    pid_t host = sl_run_host_start(&host_control, host_name, sizeof host_name, host_key,
                                   sizeof host_key);
    if (host > 0 && (setenv(SL_HOST_ENV, host_name, 1) != 0 ||
                     setenv(SL_HOST_KEY_ENV, host_key, 1) != 0)) {
        sl_run_host_end(host, host_control);
        host = -1;
    }
    if (host <= 0) {
        unsetenv(SL_HOST_ENV);  /* an outer run's host is not ours */
        unsetenv(SL_HOST_KEY_ENV);
    }

    pid_t pid;
    int rc = posix_spawnp(&pid, cmd[0], NULL, &attr, cmd, environ);
    posix_spawnattr_destroy(&attr);
    int status;
    if (rc) {
        sl_error("run", "%s: cannot run: %s", cmd[0], strerror(rc));
        status = rc == ENOENT ? 127 : 126;
    } else {
        /* as subreaper run also adopts what APP's processes orphan: reap
         * those as they end, or their zombies pile up for the whole run */
        int st = 0;
        for (;;) {
            int any;
            pid_t w = waitpid(-1, &any, 0);
            if (w == pid) {
                st = any;
                break;
            }
            if (w > 0 && w == host) {   /* the host died: the shim starts its own */
                close(host_control);
                host = -1;
            }
            if (w < 0 && errno != EINTR)
                break;
        }
        status = status_code(st);
        /* an application likwid-perfctr stopped and left (it failed after
         * forking it) would wait forever; a child that still runs is the
         * application's own business */
        if (use_perfctr && end_children(0, 1, host) > 0) {
            /* likwid-perfctr's SIGSTOP may still be on its way */
            nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
            end_children(0, 1, host);
        }
        /* a writer that outlived APP (killed during Close) delivers first */
        if (host > 0)
            sl_run_host_end(host, host_control);
        host = -1;
        /* what APP's processes wrote; a journal of one killed or crashed
         * becomes its result */
        if (report && !report_results(report, st)) {
            if (user_output && *user_output)
                sl_error("run", "no result file (did %s call likwid_markerInit? "
                         "SCOPE_LIKWID_OUTPUT is %s)", argv[app], user_output);
            else
                sl_error("run", "%s/%s: no result file (did %s call likwid_markerInit?)", cwd,
                         shown, argv[app]);
        }
    }
    if (host > 0)
        sl_run_host_end(host, host_control);
    if (report)
        unlink(report);
    free(report);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    free(cmd);
    return status;
}
