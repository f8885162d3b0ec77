/* One process's result: defaults, environment list, release. */
#include "run.h"

#include "vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The name=value lists: the run's LIKWID_* and the metadata's SLURM_* variables. */
static void vars_free(sl_env_var *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].value);
    }
    free(v);
}

/* The strings a run (p) and its metadata own, each "" until set (the
 * timing's clock is the timing's). */
#define SL_RUN_STRINGS(X, p)                                                                  \
    X(p, hostname) X(p, executable) X(p, command_line) X(p, likwid_status) X(p, cpu_model)   \
    X(p, kernel_release) X(p, clock_source) X(p, likwid_version) X(p, group)                 \
    X(p, merged_from) X(p, merged_from_group)
#define SL_RUN_META_STRINGS(X, p) X(p, working_directory) X(p, user) X(p, run_id)
#define SL_STRING_MAKE(p, m) made &= ((p)->m = strdup("")) != NULL;
#define SL_STRING_FREE(p, m) free((p)->m);

int sl_run_init(sl_run *r)
{
    memset(r, 0, sizeof *r);
    r->mpi_rank = -1;
    r->pid = -1;
    sl_timing_init(&r->timing);
    sl_likwid_init(&r->likwid);
    int made = 1;
    SL_RUN_STRINGS(SL_STRING_MAKE, r)
    r->timing.clock = strdup("");
    if (!made || !r->timing.clock || sl_run_meta_init(&r->meta) < 0) {
        sl_run_free(r);
        return -ENOMEM;
    }
    return 0;
}

void sl_run_free(sl_run *r)
{
    SL_RUN_STRINGS(SL_STRING_FREE, r)
    vars_free(r->env, r->nenv);
    sl_run_meta_free(&r->meta);
    sl_timing_free(&r->timing);
    sl_likwid_free(&r->likwid);
    memset(r, 0, sizeof *r);
}

int sl_run_meta_init(sl_run_meta *m)
{
    memset(m, 0, sizeof *m);
    m->mpi_size = m->omp_num_threads = m->start_time_ns = m->finalize_time_ns = -1;
    m->uid = -1;
    int made = 1;
    SL_RUN_META_STRINGS(SL_STRING_MAKE, m)
    if (!made) {
        sl_run_meta_free(m);
        return -ENOMEM;
    }
    return 0;
}

void sl_run_meta_free(sl_run_meta *m)
{
    SL_RUN_META_STRINGS(SL_STRING_FREE, m)
    vars_free(m->vars, m->nvars);
    memset(m, 0, sizeof *m);
}

static int add_var(sl_env_var **v, size_t *cap, size_t *n, const char *name, const char *value)
{
    if (SL_VEC_RESERVE(*v, *cap, *n, 1) < 0)
        return -ENOMEM;
    char *a = strdup(name), *b = strdup(value ? value : "");
    if (!a || !b) {
        free(a);
        free(b);
        return -ENOMEM;
    }
    (*v)[*n].name = a;
    (*v)[*n].value = b;
    (*n)++;
    return 0;
}

int sl_run_meta_add_var(sl_run_meta *m, const char *name, const char *value)
{
    return add_var(&m->vars, &m->capvars, &m->nvars, name, value);
}

int sl_run_add_env(sl_run *r, const char *name, const char *value)
{
    return add_var(&r->env, &r->capenv, &r->nenv, name, value);
}
