/* Rank detection and expansion of the SCOPE_LIKWID_OUTPUT template. */
#include "output_path.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "vec.h"

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

/* A positive count at the start of s (SLURM_NTASKS and the like), else -1. */
static int64_t leading_count(const char *s)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    int64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v > 0 && (*s == '\0' || *s == ',') ? v : -1;
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
        int64_t v = leading_count(getenv(vars[i]));
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
        const char *v = getenv(vars[i]);
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

const char *sl_job_from_env(void)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "JOB_ID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return v;
    }
    return NULL;
}

const char *sl_output_default(int mpi)
{
    return mpi ? "scope-likwid-rank%r.h5" : "scope-likwid-%p.h5";
}

typedef struct buf {
    char *s;
    size_t len, cap;
    int oom;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (SL_VEC_RESERVE(b->s, b->cap, b->len, n + 1) < 0) {
        b->oom = 1;
        return;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void puts_(buf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* A host or job name must not add directories to the path. */
static void put_component(buf *b, const char *s)
{
    for (; *s; s++)
        put(b, *s == '/' ? "_" : s, 1);
}

char *sl_output_expand(const char *tmpl, const sl_output_vars *v)
{
    buf b = {0};
    char num[32];
    if (tmpl[0] != '/' && v->cwd && v->cwd[0]) {
        puts_(&b, v->cwd);
        if (v->cwd[strlen(v->cwd) - 1] != '/')
            puts_(&b, "/");
    }
    for (const char *p = tmpl; *p; p++) {
        if (*p != '%') {
            put(&b, p, 1);
            continue;
        }
        switch (p[1]) {
        case 'r':
            snprintf(num, sizeof num, "%" PRId64, v->rank);
            puts_(&b, num);
            break;
        case 'p':
            snprintf(num, sizeof num, "%" PRId64, v->pid);
            puts_(&b, num);
            break;
        case 'h':
            put_component(&b, v->host && *v->host ? v->host : "unknownhost");
            break;
        case 'j':
            put_component(&b, v->job && *v->job ? v->job : "nojob");
            break;
        case '%':
            puts_(&b, "%");
            break;
        case '\0':
            sl_log_warn("SCOPE_LIKWID_OUTPUT='%s': '%%' at the end: expected one of "
                        "%%r %%p %%h %%j %%%%; kept literally", tmpl);
            puts_(&b, "%");
            continue;   /* p[1] is the terminator: the loop ends */
        default:
            sl_log_warn("SCOPE_LIKWID_OUTPUT='%s': unknown code '%%%c': expected one of "
                        "%%r %%p %%h %%j %%%%; kept literally", tmpl, p[1]);
            put(&b, p, 2);
            break;
        }
        p++;
    }
    if (!b.s && !b.oom)
        puts_(&b, "");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

static const char *kind_of(mode_t m)
{
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* The default name in dir (NULL: relative, as the caller's cwd resolves it). */
static char *default_in(const char *dir, int mpi, const sl_output_vars *v)
{
    sl_output_vars in = *v;
    in.cwd = dir;
    return sl_output_expand(sl_output_default(mpi), &in);
}

char *sl_output_place(char *path, int mpi, const sl_output_vars *v, int *no_result)
{
    *no_result = 0;
    size_t len = strlen(path);
    struct stat st, null_st;
    int exists = stat(path, &st) == 0;
    if ((len > 0 && path[len - 1] == '/') || (exists && S_ISDIR(st.st_mode))) {
        char *in = default_in(path, mpi, v);
        free(path);
        return in;
    }
    if (!exists || S_ISREG(st.st_mode))
        return path;
    if (stat("/dev/null", &null_st) == 0 && st.st_dev == null_st.st_dev &&
        st.st_ino == null_st.st_ino) {
        sl_log_warn("SCOPE_LIKWID_OUTPUT is %s: no result file (the calls pass through to "
                    "LIKWID untimed)", path);
        free(path);
        *no_result = 1;
        return NULL;
    }
    char *fallback = default_in(v->cwd, mpi, v);
    if (fallback)
        sl_log_warn("SCOPE_LIKWID_OUTPUT %s is %s: expected a regular file or a directory; "
                    "writing %s instead", path, kind_of(st.st_mode), fallback);
    free(path);
    return fallback;
}
