/* Every environment variable the shim reads: the configuration at Init
 * (SCOPE_LIKWID_*, each bad value warned about once and replaced by its
 * default), the launcher's rank and world size, and the few read where
 * they are used, each at the moment it was read before. */
#include "ground.h"
#include "bool_word.h"
#include "parse_int.h"
#include "trusted_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fnmatch.h>
#include <math.h>

extern char **environ;

/* Calls fn(ctx, name, value) for every environment variable whose name
 * starts with prefix (names of 256 bytes or more are passed over). */
void sl_each_env(const char *prefix, void (*fn)(void *ctx, const char *name, const char *value),
                 void *ctx)
{
    size_t plen = strlen(prefix);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || strncmp(*e, prefix, plen) != 0)
            continue;
        char name[256];
        size_t n = (size_t)(eq - *e);
        if (n >= sizeof name)
            continue;
        memcpy(name, *e, n);
        name[n] = '\0';
        fn(ctx, name, eq + 1);
    }
}

/* SCOPE_LIKWID_* variables: parsed once, bad values warned about once and
 * replaced by their defaults. */
static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Decimal seconds, fractional allowed, "C" syntax regardless of locale
 * (strtod would honour the application's LC_NUMERIC). */
int sl_parse_timeout(const char *s, double *out)
{
    double v = 0, scale = 1;
    int digits = 0, dot = 0;
    const char *p = s;
    while (is_blank(*p))
        p++;
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            if (dot) {
                scale /= 10;
                v += (*p - '0') * scale;
            } else {
                v = v * 10 + (*p - '0');
            }
            digits++;
        } else if (*p == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
    }
    while (is_blank(*p))
        p++;
    if (*p || !digits || !(v > 0) || !isfinite(v) || v > 86400.0 * 365)
        return -EINVAL;
    *out = v;
    return 0;
}

int sl_parse_max_calls(const char *s, int64_t *out)
{
    const char *p = s;
    int64_t v = 0;
    int digits = 0;
    while (is_blank(*p))
        p++;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (v > (INT64_MAX - 9) / 10)
            return -EINVAL;
        v = v * 10 + (*p - '0');
    }
    while (is_blank(*p))
        p++;
    if (*p || !digits)
        return -EINVAL;
    *out = v;
    return 0;
}

int sl_parse_sources(const char *s, unsigned *out)
{
    static const struct { const char *name; unsigned bit; } names[] = {
        {"full_api", SL_SRC_FULL_API},
        {"marker_file", SL_SRC_MARKER_FILE},
        {"marker_api", SL_SRC_MARKER_API},
    };
    unsigned bits = 0;
    const char *p = s;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *a = p, *b = p + len;
        while (a < b && is_blank(*a))
            a++;
        while (b > a && is_blank(b[-1]))
            b--;
        if (b > a) {
            int known = 0;
            for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
                if ((size_t)(b - a) == strlen(names[i].name) &&
                    memcmp(a, names[i].name, (size_t)(b - a)) == 0) {
                    bits |= names[i].bit;
                    known = 1;
                }
            if (!known)
                sl_log_warn("SCOPE_LIKWID_SOURCES: unknown source '%.*s' ignored: expected "
                            "full_api, marker_file or marker_api", (int)(b - a), a);
        }
        p += len;
        if (*p == ',')
            p++;
    }
    if (!bits)
        return -EINVAL;
    *out = bits;
    return 0;
}

/* Each variable warned about once in the process, however often it is
 * read (rebind asks at every dlopen): the names (string literals) warned
 * about so far, claimed slot by slot. */
static const char *_Atomic warned[16];

static int first_warning(const char *name)
{
    for (size_t i = 0; i < sizeof warned / sizeof warned[0]; i++) {
        const char *w = NULL;
        if (atomic_compare_exchange_strong(&warned[i], &w, name))
            return 1;
        if (strcmp(w, name) == 0)
            return 0;
    }
    return 1;
}

int sl_env_bool(const char *name, int def)
{
    char warn[SL_BOOL_WARN_BUF];
    int b = sl_bool_value(name, getenv(name), def, warn);
    if (warn[0] && first_warning(name))
        sl_log_warn("%s", warn);
    return b;
}

int sl_config_disabled(void)
{
    return sl_env_bool("SCOPE_LIKWID_DISABLE", 0);
}

/* A variable that names a program or a path (secure_getenv: a setuid or
 * setgid program never gets this far, do_init leaves it alone). */
static char *env_path(const char *name)
{
    const char *v = secure_getenv(name);
    if (v && !*v) {
        sl_log_warn("%s is empty: expected a path; using the default", name);
        return NULL;
    }
    return v ? strdup(v) : NULL;
}

void sl_config_free(sl_config *c)
{
    free(c->output);
    free(c->collector);
    free(c->writer);
    memset(c, 0, sizeof *c);
}

void sl_config_load(sl_config *c)
{
    memset(c, 0, sizeof *c);
    /* Quiet and verbose first, so that they govern the warnings below. */
    c->quiet = sl_env_bool("SCOPE_LIKWID_QUIET", 0);
    c->verbose = sl_env_bool("SCOPE_LIKWID_VERBOSE", 0);
    sl_log_configure(c->verbose, c->quiet);
    c->disabled = sl_config_disabled();

    c->timeout_s = SL_DEFAULT_TIMEOUT_S;
    const char *v = getenv("SCOPE_LIKWID_TIMEOUT");
    if (v && sl_parse_timeout(v, &c->timeout_s) != 0)
        sl_log_warn("SCOPE_LIKWID_TIMEOUT='%s' not understood: expected seconds > 0 "
                    "(e.g. 10 or 2.5); using %g", v, SL_DEFAULT_TIMEOUT_S);

    c->sources = SL_SRC_ALL;
    v = getenv("SCOPE_LIKWID_SOURCES");
    if (v && sl_parse_sources(v, &c->sources) != 0)
        sl_log_warn("SCOPE_LIKWID_SOURCES='%s' names no known source: expected a comma list of "
                    "full_api, marker_file, marker_api; using all three", v);

    c->max_calls = SL_DEFAULT_MAX_CALLS;
    v = getenv("SCOPE_LIKWID_MAX_CALLS");
    if (v && sl_parse_max_calls(v, &c->max_calls) != 0)
        sl_log_warn("SCOPE_LIKWID_MAX_CALLS='%s' not understood: expected an integer >= 0; "
                    "using %d", v, SL_DEFAULT_MAX_CALLS);

    /* A site may keep the arguments out of every result (they may hold
     * secrets); the program's name stays. */
    c->keep_args = sl_env_bool("SCOPE_LIKWID_ARGS", 1);
    if (sl_share_setting() < 0)
        sl_log_warn("%s='%s' not understood: expected group or none; sharing nothing",
                    SL_SHARE_ENV, getenv(SL_SHARE_ENV));

    c->output = env_path("SCOPE_LIKWID_OUTPUT");
    c->collector = env_path("SCOPE_LIKWID_COLLECTOR");
    c->writer = env_path("SCOPE_LIKWID_WRITER");
}

/* Rank detection and expansion of the SCOPE_LIKWID_OUTPUT template. */
static int parse_rank(const char *s, int64_t *out)
{
    int64_t v = 0;
    const char *p = s;
    if (!*p)
        return -EINVAL;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (INT64_MAX - 9) / 10)
            return -EINVAL;
        v = v * 10 + (*p - '0');
    }
    if (*p)
        return -EINVAL;
    *out = v;
    return 0;
}

/* A positive count at the start of s, up to a ',' (the rest: a launcher's
 * per-node list, OpenMP's nesting levels), else -1. as_openmp: read as
 * OpenMP reads its own variable (a number: blanks and '+' before it);
 * else digits only (SLURM_NTASKS and the like). */
int64_t sl_leading_count(const char *s, int as_openmp)
{
    if (!s)
        return -1;
    if (as_openmp) {
        char buf[24];
        size_t n = strcspn(s, ",");
        if (n == 0 || n >= sizeof buf)
            return -1;
        memcpy(buf, s, n);
        buf[n] = '\0';
        long long v;
        return sl_parse_i64(buf, &v) == 0 && v > 0 ? v : -1;
    }
    if (*s < '0' || *s > '9')
        return -1;
    int64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v > 0 && (*s == '\0' || *s == ',') ? v : -1;
}

/* Slurm's task variables (SLURM_PROCID, SLURM_NTASKS) name a task only
 * inside a step (srun): a batch script has SLURM_PROCID=0 and the job's
 * SLURM_NTASKS, but runs one process of its own, not a task of N. */
static const char *slurm_task_var(const char *name)
{
    const char *step = getenv("SLURM_STEP_ID");
    return step && *step ? getenv(name) : NULL;
}

int64_t sl_world_size_from_env(void)
{
    /* OMPI_MCA_orte_ess_num_procs: what Open MPI 4's own singleton sets
     * (with PMIX_RANK=0 and no other size); mpirun sets it to the job's
     * size too. */
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                       "SLURM_NTASKS", "MV2_COMM_WORLD_SIZE", "PALS_SIZE",
                                       "OMPI_MCA_orte_ess_num_procs"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        int64_t v = sl_leading_count(strncmp(vars[i], "SLURM_", 6) ? getenv(vars[i])
                                                                   : slurm_task_var(vars[i]),
                                     0);
        if (v > 0)
            return v;
    }
    const char *ess = getenv("OMPI_MCA_ess");
    if (ess && strcmp(ess, "singleton") == 0)
        return 1;
    return -1;
}

int sl_rank_from_env(int64_t *rank)
{
    static const char *const vars[] = {
        "PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID",
        "MV2_COMM_WORLD_RANK", "MPI_LOCALRANKID", "ALPS_APP_PE", "PALS_RANKID",
    };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = strncmp(vars[i], "SLURM_", 6) ? getenv(vars[i]) : slurm_task_var(vars[i]);
        if (!v)
            continue;
        if (parse_rank(v, rank) == 0)
            /* A world of one (an MPI singleton: a serial run whose MPI
             * library set PMIX_RANK=0; srun -n 1) is a serial run. */
            return sl_world_size_from_env() != 1;
        sl_log_warn("%s='%s' is not a rank: expected an integer >= 0; ignored", vars[i], v);
    }
    return 0;
}

int sl_excluded(const char *patterns, const char *exe)
{
    if (!patterns || !*patterns || !exe)
        return 0;
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    for (const char *p = patterns; *p;) {
        size_t n = strcspn(p, ":");
        char pat[256];
        if (n && n < sizeof pat) {
            memcpy(pat, p, n);
            pat[n] = '\0';
            if (fnmatch(pat, exe, 0) == 0 || fnmatch(pat, base, 0) == 0)
                return 1;
        }
        p += n + (p[n] == ':');
    }
    return 0;
}

/* LIKWID counts only under likwid-perfctr -m: its four variables set. */
void sl_env_counting(void)
{
    static const char *const need[] = {"LIKWID_FILEPATH", "LIKWID_MODE", "LIKWID_EVENTS",
                                       "LIKWID_THREADS"};
    const char *missing = NULL;
    for (size_t i = 0; i < sizeof need / sizeof need[0] && !missing; i++)
        if (!getenv(need[i]))
            missing = need[i];
    sl_g.counting = !missing;
    if (missing && strcmp(missing, "LIKWID_FILEPATH") == 0)
        sl_g.not_counting = strdup("LIKWID_FILEPATH not set: not run under likwid-perfctr -m");
    else if (missing) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s not set", missing);
        sl_g.not_counting = strdup(buf);
    }
    const char *ev = getenv("LIKWID_EVENTS");
    sl_g.ngroups = 1;
    for (const char *p = ev ? ev : ""; *p; p++)
        sl_g.ngroups += *p == '|';
}

/* ---- the variables read where they are used (each at its moment: LIKWID
 * or the application may change one later, and the shim sees what it
 * would have seen then) ---- */

/* The whole environment (the journal's SLURM_* note, the helpers'). */
char **sl_env_all(void)
{
    return environ;
}

/* A variable read where it is used, by name (SL_ENV_*, ground.h). */
const char *sl_env(int var)
{
    switch (var) {
    case SL_ENV_LIKWID_FILEPATH:    /* each cycle's Init, and Close */
        return secure_getenv("LIKWID_FILEPATH");
    case SL_ENV_OMP_NUM_THREADS:    /* Init (the journal's note), Close */
        return getenv("OMP_NUM_THREADS");
    case SL_ENV_EXCLUDE:            /* Init, and a dlopen before it */
        return getenv("SCOPE_LIKWID_EXCLUDE");
    case SL_ENV_REBIND:             /* its value, for the exit note's line */
        return getenv("SCOPE_LIKWID_REBIND");
    case SL_ENV_RUN_REPORT:         /* Init */
        return secure_getenv("SCOPE_LIKWID_RUN_REPORT");
    }
    return NULL;
}

void sl_env_run_host(const char **addr, const char **key)
{
    *addr = secure_getenv(SL_HOST_ENV);
    *key = secure_getenv(SL_HOST_KEY_ENV);
}

const char *sl_env_job(void)
{
    return sl_job_from_env();
}

char *sl_env_run_id(const char *host, pid_t pid, int64_t unix_ns, int mpi)
{
    return sl_run_id_from_env(host, pid, unix_ns, mpi);
}

/* The spare directories, noted once from TMPDIR (os/files.c). */
void sl_env_spare_dirs_note(void)
{
    if (!sl_spare_dirs_noted())
        sl_spare_dirs_note(secure_getenv("TMPDIR"));
}

const char *sl_spare_dir(int i)
{
    sl_env_spare_dirs_note();
    return sl_spare_dir_noted(i);
}
