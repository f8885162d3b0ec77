/* scope-likwid run: runs an application with the shim preloaded, under
 * `likwid-perfctr -m` when LIKWID can count on this host (the probe:
 * run_perfctr.c), and says where the result went (run_report.c). */
#include "cmds.h"
#include "helper_host.h"
#include "provenance.h"
#include "run_host.h"
#include "run_perfctr.h"
#include "run_report.h"
#include "why.h"

#include <errno.h>
#include <limits.h>
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

/* ---- the command ----------------------------------------------------------- */

/* What one run knows, from its arguments to the application's end. */
typedef struct run_ctx {
    int argc;
    char **argv;
    int app;                    /* argv[app] is APP */
    int nopts;                  /* likwid-perfctr options: argv[1..nopts] */
    const char *perfctr;
    int use_perfctr;
    const char *user_output;    /* SCOPE_LIKWID_OUTPUT as given */
    char cwd[PATH_MAX];         /* where the default name is (no user_output) */
    const char *shown;          /* the default name, as the no-result line says it */
    char *report;               /* run's report file; NULL: none could be made */
    struct sigaction old_int, old_quit;
} run_ctx;

/* APP's index and the number of options before it; -1 when the command
 * line is good, else what sl_cmd_run returns (help, a usage error). */
static int run_args(run_ctx *r)
{
    int argc = r->argc;
    char **argv = r->argv;
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
    if (app < 0) {
        if (argv[1][0] == '-')
            return sl_usage_error("run", "missing '--' between likwid-perfctr options and APP");
        app = 1;
        r->nopts = 0;
    } else {
        r->nopts = app - 2;
    }
    if (app >= argc)
        return sl_usage_error("run", "missing APP after '--'");
    r->app = app;
    return -1;
}

/* likwid-perfctr or not: 1 when it can count here with the options given,
 * else 0 and one line why. */
static int perfctr_choice(run_ctx *r)
{
    const char *perfctr = getenv("SCOPE_LIKWID_PERFCTR");
    if (!perfctr || !*perfctr)
        perfctr = "likwid-perfctr";
    r->perfctr = perfctr;
    char reason_buf[256];
    sl_why reason;
    sl_why_in(&reason, reason_buf, sizeof reason_buf);
    /* what likwid-perfctr leaves behind becomes ours to end (run_perfctr.c) */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    sl_perfctr_verdict verdict;
    if (!strcmp(perfctr, "none")) {
        verdict = SL_PERFCTR_CANNOT;
        sl_why_add(&reason, "SCOPE_LIKWID_PERFCTR=none");
    } else {
        verdict = sl_perfctr_works(perfctr, r->argv + 1, r->nopts, &reason);
    }
    if (verdict == SL_PERFCTR_OPTIONS)
        sl_error("run", "likwid-perfctr refuses the options given before '--' (%s): running "
                 "%s without likwid-perfctr; timing only", sl_why_text(&reason), r->argv[r->app]);
    else if (verdict == SL_PERFCTR_CANNOT)
        sl_error("run", "LIKWID cannot count on this host (%s): running %s without "
                 "likwid-perfctr; timing only", sl_why_text(&reason), r->argv[r->app]);
    return verdict == SL_PERFCTR_COUNTS;
}

/* The default SCOPE_LIKWID_OUTPUT (newly allocated; NULL: no memory), in
 * the working directory; r->shown gets its name as the no-result line says
 * it. */
static char *default_output(run_ctx *r)
{
    char *output_tmpl = NULL;
    if (!getcwd(r->cwd, sizeof r->cwd))
        snprintf(r->cwd, sizeof r->cwd, ".");
    /* %p: the pid of APP's process that writes, which run cannot know
     * beforehand (under likwid-perfctr APP is its grandchild); a rank's
     * file by its rank, as the shim names it under a launcher; %j in a
     * batch job, so that reruns never collide */
    int job = sl_job_from_env() != NULL, rank = launched_rank();
    const char *name = rank ? (job ? "scope-likwid-%j-rank%r" : "scope-likwid-rank%r")
                            : (job ? RUN_PREFIX "%j-%p" : RUN_PREFIX "%p");
    r->shown = rank ? (job ? "scope-likwid-<JOB>-rank<R>.h5" : "scope-likwid-rank<R>.h5")
                    : (job ? RUN_PREFIX "<JOB>-<PID>.h5" : RUN_PREFIX "<PID>.h5");
    char *dir = escape_percent(r->cwd);
    if (dir && asprintf(&output_tmpl, "%s/%s.h5", dir, name) < 0)
        output_tmpl = NULL;
    free(dir);
    return output_tmpl;
}

/* APP's environment: LD_PRELOAD, the output path, run's report. Takes
 * shim. 0, or SL_EXIT_FAIL (said). */
static int run_environment(run_ctx *r, char *shim)
{
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
    r->user_output = user_output;
    char *output_tmpl = NULL;
    if (!user_output || !*user_output)
        output_tmpl = default_output(r);
    r->report = sl_run_report_create();
    if (!r->report)
        sl_error("run", "cannot create a file in TMPDIR or /tmp to learn the result's name "
                 "(%s): the shim's own line names it", strerror(errno));
    if (!preload || (!user_output && !output_tmpl) || setenv("LD_PRELOAD", preload, 1) ||
        (output_tmpl && setenv("SCOPE_LIKWID_OUTPUT", output_tmpl, 1)) ||
        (r->report && setenv("SCOPE_LIKWID_RUN_REPORT", r->report, 1))) {
        sl_error("run", "out of memory");
        free(shim);
        free(preload);
        free(output_tmpl);
        if (r->report)
            unlink(r->report);
        free(r->report);
        return SL_EXIT_FAIL;
    }
    free(preload);
    free(output_tmpl);
    free(shim);
    return 0;
}

/* likwid-perfctr OPTIONS -m APP ARGS, or APP ARGS; NULL: no memory. */
static char **run_command_line(const run_ctx *r)
{
    int nargs = r->argc - r->app, nopts = r->nopts;
    char **opts = r->argv + 1;
    char **cmd = calloc((size_t)(nopts + nargs + 3), sizeof *cmd);
    if (!cmd)
        return NULL;
    int c = 0;
    if (r->use_perfctr) {
        int has_m = 0;
        cmd[c++] = (char *)r->perfctr;
        for (int i = 0; i < nopts; i++) {
            has_m |= !strcmp(opts[i], "-m") || !strcmp(opts[i], "--marker");
            cmd[c++] = opts[i];
        }
        if (!has_m)
            cmd[c++] = "-m";
    }
    for (int i = 0; i < nargs; i++)
        cmd[c++] = r->argv[r->app + i];
    cmd[c] = NULL;
    return cmd;
}

/* The helpers of APP's shim become run's children, not APP's: run's
 * helper host, its address and key in the environment; -1: none. */
static pid_t host_start(int *host_control)
{
    char host_name[108], host_key[SL_MAC_HEX + 1];
    pid_t host = sl_run_host_start(host_control, host_name, sizeof host_name, host_key,
                                   sizeof host_key);
    if (host > 0 && (setenv(SL_HOST_ENV, host_name, 1) != 0 ||
                     setenv(SL_HOST_KEY_ENV, host_key, 1) != 0)) {
        sl_run_host_end(host, *host_control);
        host = -1;
    }
    if (host <= 0) {
        unsetenv(SL_HOST_ENV);  /* an outer run's host is not ours */
        unsetenv(SL_HOST_KEY_ENV);
    }
    return host;
}

/* After APP started as pid: its end, what it left, what its processes
 * wrote. Its exit code. */
static int app_ended(const run_ctx *r, pid_t pid, pid_t *host, int host_control)
{
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
        if (w > 0 && w == *host) {  /* the host died: the shim starts its own */
            close(host_control);
            *host = -1;
        }
        if (w < 0 && errno != EINTR)
            break;
    }
    int status = sl_wait_code(st);
    /* an application likwid-perfctr stopped and left (it failed after
     * forking it) would wait forever; a child that still runs is the
     * application's own business */
    if (r->use_perfctr && sl_run_end_children(0, 1, *host) > 0) {
        /* likwid-perfctr's SIGSTOP may still be on its way */
        nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
        sl_run_end_children(0, 1, *host);
    }
    /* a writer that outlived APP (killed during Close) delivers first */
    if (*host > 0)
        sl_run_host_end(*host, host_control);
    *host = -1;
    /* what APP's processes wrote; a journal of one killed or crashed
     * becomes its result */
    if (r->report && !sl_run_report_results(r->report, st)) {
        if (r->user_output && *r->user_output)
            sl_error("run", "no result file (did %s call likwid_markerInit? "
                     "SCOPE_LIKWID_OUTPUT is %s)", r->argv[r->app], r->user_output);
        else
            sl_error("run", "%s/%s: no result file (did %s call likwid_markerInit?)", r->cwd,
                     r->shown, r->argv[r->app]);
    }
    return status;
}

/* Runs cmd like system(): the terminal's ^C goes to the child; we stay
 * to report (r->old_int, r->old_quit: the dispositions to restore). */
static int run_app(run_ctx *r, char **cmd)
{
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &r->old_int);
    sigaction(SIGQUIT, &ign, &r->old_quit);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGQUIT);
    posix_spawnattr_setsigdefault(&attr, &def);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    int host_control = -1;
    pid_t host = host_start(&host_control);
    pid_t pid;
    int rc = posix_spawnp(&pid, cmd[0], NULL, &attr, cmd, environ);
    posix_spawnattr_destroy(&attr);
    int status;
    if (rc) {
        sl_error("run", "%s: cannot run: %s", cmd[0], strerror(rc));
        status = rc == ENOENT ? 127 : 126;
    } else {
        status = app_ended(r, pid, &host, host_control);
    }
    if (host > 0)
        sl_run_host_end(host, host_control);
    return status;
}

int sl_cmd_run(int argc, char **argv)
{
    run_ctx r = {.argc = argc, .argv = argv};
    int rc = run_args(&r);
    if (rc >= 0)
        return rc;
    char looked[3 * PATH_MAX];
    char *shim = sl_find_shim(looked, sizeof looked);
    if (!shim) {
        sl_error("run", "cannot find " SHIM_NAME " (looked at %s): "
                 "expected an installed or built shim", looked);
        return SL_EXIT_FAIL;
    }
    r.use_perfctr = perfctr_choice(&r);
    if (run_environment(&r, shim))
        return SL_EXIT_FAIL;
    char **cmd = run_command_line(&r);
    if (!cmd) {
        sl_error("run", "out of memory");
        if (r.report)
            unlink(r.report);
        free(r.report);
        return SL_EXIT_FAIL;
    }
    int status = run_app(&r, cmd);
    if (r.report)
        unlink(r.report);
    free(r.report);
    sigaction(SIGINT, &r.old_int, NULL);
    sigaction(SIGQUIT, &r.old_quit, NULL);
    free(cmd);
    return status;
}
