/* scope-likwid run: runs an application with the shim preloaded, under
 * `likwid-perfctr -m` when LIKWID can count on this host, and says where
 * the result went. */
#include "cmds.h"
#include "recover.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#ifndef SL_BINDIR_TO_LIBDIR
#define SL_BINDIR_TO_LIBDIR "../lib"
#endif
#define SHIM_NAME "libscope_likwid.so"

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
    "./scope-likwid-run-<pid of scope-likwid>.h5 (the shim picks\n"
    "....1.h5 if that exists); its name is printed after APP exits.\n"
    "\n"
    "Environment:\n"
    "  SCOPE_LIKWID_PERFCTR   likwid-perfctr program to use (default\n"
    "                         likwid-perfctr on PATH; \"none\": never use it)\n"
    "  SCOPE_LIKWID_SHIM      path of libscope_likwid.so (default: found next\n"
    "                         to this program)\n"
    "  SCOPE_LIKWID_OUTPUT, SCOPE_LIKWID_DISABLE, ...: read by the shim\n"
    "\n"
    "Exit status: APP's (128+N when killed by signal N); 127 when APP cannot\n"
    "be started, 2 usage error, 1 when the shim is not found.\n";

/* ---- child processes ------------------------------------------------------ */

static int status_code(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return SL_EXIT_FAIL;
}

/* Runs argv with stdout and stderr captured into *out (NUL-terminated,
 * at most 64 KiB kept). Returns the exit code, or negative errno when it
 * could not be started. */
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
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (rc) {
        close(fd[0]);
        return -rc;
    }
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    char sink[4096];
    for (;;) {
        ssize_t r = buf && n < cap ? read(fd[0], buf + n, cap - n) : read(fd[0], sink, sizeof sink);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        if (buf && n < cap)
            n += (size_t)r;
    }
    close(fd[0]);
    if (buf)
        buf[n] = '\0';
    *out = buf;
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -errno;
    return status_code(st);
}

/* The most telling line of likwid-perfctr's output: its first "ERROR" (the
 * text after "] "), else a line saying what is missing, else the last one. */
static void perfctr_reason(const char *out, char *reason, size_t size)
{
    const char *best = NULL, *hint = NULL, *last = NULL;
    for (const char *l = out; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        if (len) {
            if (!best && !strncmp(l, "ERROR", 5))
                best = l;
            if (!hint && (memmem(l, len, "must", 4) || memmem(l, len, "annot", 5) ||
                          memmem(l, len, "not ", 4)))
                hint = l;
            last = l;
        }
        l = e ? e + 1 : NULL;
    }
    const char *l = best ? best : hint ? hint : last;
    if (!l) {
        snprintf(reason, size, "no output");
        return;
    }
    size_t len = strcspn(l, "\n");
    if (best) {
        const char *p = memmem(l, len, "] ", 2);
        if (p) {
            len -= (size_t)(p + 2 - l);
            l = p + 2;
        }
    }
    if (len >= size)
        len = size - 1;
    memcpy(reason, l, len);
    reason[len] = '\0';
}

/* 1 when likwid-perfctr can count here with these options; else 0 and why. */
static int perfctr_works(const char *perfctr, char **opts, int nopts, char *reason, size_t size)
{
    char *out = NULL;
    char *probe1[] = {(char *)perfctr, "-e", NULL};
    int rc = run_captured(probe1, &out);
    if (rc < 0) {
        snprintf(reason, size, "cannot run %s: %s", perfctr, strerror(-rc));
        free(out);
        return 0;
    }
    /* an unsupported CPU still exits 0 here, but says ERROR */
    if (rc != 0 || (out && (strstr(out, "ERROR") || strstr(out, "has 0 counters")))) {
        perfctr_reason(out, reason, size);
        free(out);
        return 0;
    }
    free(out);
    /* the real options on a trivial program: catches missing -g, MSR access */
    char **probe2 = calloc((size_t)nopts + 3, sizeof *probe2);
    if (!probe2) {
        snprintf(reason, size, "out of memory");
        return 0;
    }
    probe2[0] = (char *)perfctr;
    for (int i = 0; i < nopts; i++)
        probe2[1 + i] = opts[i];
    probe2[1 + nopts] = "true";
    rc = run_captured(probe2, &out);
    free(probe2);
    if (rc != 0) {
        if (rc < 0)
            snprintf(reason, size, "cannot run %s: %s", perfctr, strerror(-rc));
        else
            perfctr_reason(out, reason, size);
        free(out);
        return 0;
    }
    free(out);
    return 1;
}

/* ---- where things are ----------------------------------------------------- */

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The shim: $SCOPE_LIKWID_SHIM, else beside this program in the build tree
 * (../shim/) or installed (bindir -> libdir). Newly allocated or NULL. */
static char *find_shim(char *looked, size_t size)
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

/* path "x.h5" -> "x.<k>.h5" (k 0: path itself). 0, or -1 when too long. */
static int numbered(const char *path, unsigned k, char *out, size_t size)
{
    size_t len = strlen(path);
    int n;
    if (!k)
        n = snprintf(out, size, "%s", path);
    else if (len > 3 && !strcmp(path + len - 3, ".h5"))
        n = snprintf(out, size, "%.*s.%u.h5", (int)(len - 3), path, k);
    else
        n = snprintf(out, size, "%s.%u", path, k);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* The first of path, path.1.h5, ... created (modified) since `since`. */
static int find_result(const char *path, time_t since, char *out, size_t size)
{
    for (unsigned k = 0; k < 1000; k++) {
        struct stat st;
        if (numbered(path, k, out, size) < 0)
            return 0;
        if (stat(out, &st) < 0) {
            if (k > 0)
                return 0;
            continue;
        }
        if (st.st_mtime >= since)
            return 1;
    }
    return 0;
}

/* ---- command -------------------------------------------------------------- */

int sl_cmd_run(int argc, char **argv)
{
    if (argc < 2)
        return sl_usage_error("run: missing '-- APP'");
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fputs(usage, stdout);
        return SL_EXIT_OK;
    }
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
            return sl_usage_error("run: missing '--' between likwid-perfctr options and APP");
        app = 1;
        nopts = 0;
    } else {
        nopts = app - 2;
    }
    if (app >= argc)
        return sl_usage_error("run: missing APP after '--'");
    char **opts = argv + 1;

    char looked[3 * PATH_MAX];
    char *shim = find_shim(looked, sizeof looked);
    if (!shim) {
        fprintf(stderr, "scope-likwid: cannot find " SHIM_NAME " (looked at %s): "
                        "expected an installed or built shim\n", looked);
        return SL_EXIT_FAIL;
    }

    /* likwid-perfctr or not */
    const char *perfctr = getenv("SCOPE_LIKWID_PERFCTR");
    if (!perfctr || !*perfctr)
        perfctr = "likwid-perfctr";
    char reason[256];
    int use_perfctr;
    if (!strcmp(perfctr, "none")) {
        use_perfctr = 0;
        snprintf(reason, sizeof reason, "SCOPE_LIKWID_PERFCTR=none");
    } else {
        use_perfctr = perfctr_works(perfctr, opts, nopts, reason, sizeof reason);
    }
    if (!use_perfctr)
        fprintf(stderr, "scope-likwid: LIKWID cannot count on this host (%s): running %s without "
                        "likwid-perfctr; timing only\n", reason, argv[app]);

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
    char result[PATH_MAX + 64] = "";
    char *output_tmpl = NULL;
    if (!user_output || !*user_output) {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            snprintf(cwd, sizeof cwd, ".");
        snprintf(result, sizeof result, "%s/scope-likwid-run-%ld.h5", cwd, (long)getpid());
        output_tmpl = escape_percent(result);
    }
    if (!preload || (!user_output && !output_tmpl) || setenv("LD_PRELOAD", preload, 1) ||
        (output_tmpl && setenv("SCOPE_LIKWID_OUTPUT", output_tmpl, 1))) {
        fprintf(stderr, "scope-likwid: out of memory\n");
        free(shim);
        free(preload);
        free(output_tmpl);
        return SL_EXIT_FAIL;
    }
    free(preload);
    free(output_tmpl);
    free(shim);

    /* the command line */
    int nargs = argc - app;
    char **cmd = calloc((size_t)(nopts + nargs + 3), sizeof *cmd);
    if (!cmd) {
        fprintf(stderr, "scope-likwid: out of memory\n");
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

    time_t started = time(NULL);
    pid_t pid;
    int rc = posix_spawnp(&pid, cmd[0], NULL, &attr, cmd, environ);
    posix_spawnattr_destroy(&attr);
    int status;
    if (rc) {
        fprintf(stderr, "scope-likwid: cannot run %s: %s\n", cmd[0], strerror(rc));
        status = rc == ENOENT ? 127 : 126;
    } else {
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        status = status_code(st);
        if (!(user_output && *user_output))
            sl_recover_after_run(result, st);   /* killed: its journal becomes the result */
        char found[PATH_MAX + 64];
        if (user_output && *user_output)
            fprintf(stderr, "scope-likwid: result in the file named by SCOPE_LIKWID_OUTPUT (%s)\n",
                    user_output);
        else if (find_result(result, started, found, sizeof found))
            fprintf(stderr, "scope-likwid: result in %s\n", found);
        else
            fprintf(stderr, "scope-likwid: no result file %s (did %s call likwid_markerInit?)\n",
                    result, argv[app]);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    free(cmd);
    return status;
}
