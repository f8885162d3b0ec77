/* likwid_markerInit's first part, once per process: configuration, the
 * result's name, the tables, the clock, the hooks, the journal. */
#include "face.h"

#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static char *absolute(const char *path, const char *cwd)
{
    if (path[0] == '/' || !cwd)
        return strdup(path);
    size_t a = strlen(cwd), b = strlen(path);
    char *s = malloc(a + b + 2);
    if (s) {
        memcpy(s, cwd, a);
        s[a] = '/';
        memcpy(s + a + 1, path, b + 1);
    }
    return s;
}

/* The process's identity and what Init knows of LIKWID; returns Init's
 * CLOCK_REALTIME in ns. */
static int64_t init_process(void)
{
    sl_g.pid = getpid();
    sl_sandbox_note();
    sl_root_note();
    sl_run_meta_start();
    int64_t mono = sl_clock_ns(CLOCK_MONOTONIC), real = sl_clock_ns(CLOCK_REALTIME);
    sl_g.origin_unix_ns = real - mono;
    sl_markerfile_note_init();
    sl_g.mpi = sl_rank_from_env(&sl_g.rank);
    if (!sl_g.mpi)
        sl_g.rank = 0;
    sl_env_counting();
    return real;
}

/* The result's name (sl_g.output; NULL with *no_result for /dev/null, else
 * on ENOMEM), and the helpers' paths made absolute. */
static void init_result_name(int64_t real, int *no_result)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    char *cwd = getcwd(NULL, 0);
    free(sl_g.user);
    sl_g.uid = getuid();
    /* The passwd lookup may load the site's NSS modules into the
     * application: done here only for a %u (the defaults have none). */
    sl_g.user = sl_output_needs_user(sl_g.cfg.output) ? sl_user_name(sl_g.uid) : NULL;
    sl_env_spare_dirs_note();
    sl_proof_key_make();
    sl_output_vars v = {.rank = sl_g.rank, .pid = sl_g.pid, .host = host,
                        .job = sl_env_job(), .user = sl_g.user,
                        .unix_s = real / 1000000000, .cwd = cwd};
    /* where it runs, once: Close may run at exit or in a signal's wake */
    sl_provenance_read(&sl_g.prov);
    free(sl_g.run_id);
    sl_g.run_id = sl_env_run_id(host, sl_g.pid, real, sl_g.mpi);
    const char *tmpl = sl_g.cfg.output ? sl_g.cfg.output : sl_output_default(sl_g.mpi, v.job != NULL);
    char *expanded = sl_output_expand(tmpl, &v);
    sl_name_result_init(expanded, &v, no_result);
    /* Helpers are started later, maybe after a chdir: fix their paths now. */
    char *c;
    if (sl_g.cfg.collector && (c = absolute(sl_g.cfg.collector, cwd))) {
        free(sl_g.cfg.collector);
        sl_g.cfg.collector = c;
    }
    if (sl_g.cfg.writer && (c = absolute(sl_g.cfg.writer, cwd))) {
        free(sl_g.cfg.writer);
        sl_g.cfg.writer = c;
    }
    free(cwd);
}

/* The tables, the clock, the hooks, the journal and the reports; then
 * ACTIVE. */
static void init_timing(void)
{
    sl_rt_configure(sl_g.cfg.max_calls, 0);
    /* SCOPE_LIKWID_TSC=0 forces clock_gettime (for comparisons; undocumented
     * outside bench/README.md). */
    const char *tsc = sl_env(SL_ENV_TSC);
    int on_tsc = sl_rt_clock_init(!(tsc && strcmp(tsc, "0") == 0));
    sl_g.tsc = on_tsc;
    sl_fork_arm();
    /* The exit path (LIKWID's Init may end the process, the application
     * may never Close): end/ending.c. */
    sl_exit_hook_arm();
    sl_g.cycle = 1;
    sl_name_result_first();
    /* What Close needs, held while the process has the root it started with */
    sl_anchor_take(sl_g.output);
    sl_user_change_arm();
    sl_survive_begin(sl_g.output, sl_g.pid, 0, sl_g.mpi, sl_g.rank, sl_g.origin_unix_ns, on_tsc,
                     sl_g.cfg.writer, sl_g.cfg.timeout_s);
    sl_run_report_take(sl_env(SL_ENV_RUN_REPORT));
    sl_host_take();
    sl_run_report("init", sl_g.output);
    sl_run_report("journal", sl_journal_path());
    sl_api_standins();
    sl_log_debug("active: output %s; clock %s; LIKWID %s%s", sl_g.output,
                 on_tsc ? "TSC, converted to CLOCK_MONOTONIC" : "CLOCK_MONOTONIC",
                 sl_g.counting ? "counting" : "not counting: ",
                 sl_g.counting ? "" : sl_g.not_counting ? sl_g.not_counting : "?");
    atomic_store(&sl_mode, SL_MODE_ACTIVE);
}

static void do_init(void)
{
    /* A setuid or setgid program (AT_SECURE) runs with rights its user does
     * not have: nothing of the shim's runs in it, no file, no process, no
     * line (docs/SECURITY.md). */
    if (getauxval(AT_SECURE)) {
        atomic_store(&sl_mode, SL_MODE_PASS);
        return;
    }
    sl_spawn_at_load();
    sl_real_libc_find();
    sl_config_load(&sl_g.cfg);
    char *exe = realpath("/proc/self/exe", NULL);
    int excluded = sl_excluded(sl_env(SL_ENV_EXCLUDE), exe);
    free(exe);
    if (sl_g.cfg.disabled || excluded) {
        atomic_store(&sl_mode, SL_MODE_PASS);
        return;
    }
    const char *other = sl_real_other_copy();
    if (other) {
        char *self = sl_self_path();
        sl_log_warn("two copies of the shim are loaded: %s times the regions, %s stays out",
                    self ? self : "the first", other);
        free(self);
    }
    int64_t real = init_process();
    int no_result = 0;      /* SCOPE_LIKWID_OUTPUT=/dev/null */
    init_result_name(real, &no_result);
    if (no_result) {
        atomic_store(&sl_mode, SL_MODE_PASS);
        return;
    }
    if (!sl_g.output) {
        sl_log_warn("out of memory at likwid_markerInit; passing calls through untouched");
        atomic_store(&sl_mode, SL_MODE_PASS);
        return;
    }
    init_timing();
}

/* The first Init's part, once per process. */
void sl_init_once(void)
{
    pthread_once(&init_once, do_init);
}
