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

int sl_run_init(sl_run *r)
{
    memset(r, 0, sizeof *r);
    r->mpi_rank = -1;
    r->pid = -1;
    sl_timing_init(&r->timing);
    sl_likwid_init(&r->likwid);
    r->hostname = strdup("");
    r->executable = strdup("");
    r->command_line = strdup("");
    r->likwid_status = strdup("");
    r->cpu_model = strdup("");
    r->kernel_release = strdup("");
    r->clock_source = strdup("");
    r->likwid_version = strdup("");
    r->timing.clock = strdup("");
    r->group = strdup("");
    r->merged_from = strdup("");
    r->merged_from_group = strdup("");
    if (!r->hostname || !r->executable || !r->command_line || !r->likwid_status ||
        !r->likwid_version || !r->cpu_model || !r->kernel_release || !r->clock_source ||
        !r->timing.clock || !r->group || !r->merged_from || !r->merged_from_group ||
        sl_run_meta_init(&r->meta) < 0) {
        sl_run_free(r);
        return -ENOMEM;
    }
    return 0;
}

void sl_run_free(sl_run *r)
{
    free(r->hostname);
    free(r->executable);
    free(r->command_line);
    free(r->likwid_status);
    free(r->cpu_model);
    free(r->kernel_release);
    free(r->clock_source);
    free(r->likwid_version);
    vars_free(r->env, r->nenv);
    free(r->group);
    free(r->merged_from);
    free(r->merged_from_group);
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
    m->working_directory = strdup("");
    m->user = strdup("");
    m->run_id = strdup("");
    if (!m->working_directory || !m->user || !m->run_id) {
        sl_run_meta_free(m);
        return -ENOMEM;
    }
    return 0;
}

void sl_run_meta_free(sl_run_meta *m)
{
    free(m->working_directory);
    free(m->user);
    free(m->run_id);
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
