/* One process's result: defaults, environment list, release. */
#include "run.h"

#include "vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
    r->timing.clock = strdup("");
    if (!r->hostname || !r->executable || !r->command_line || !r->likwid_status || !r->timing.clock) {
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
    for (size_t i = 0; i < r->nenv; i++) {
        free(r->env[i].name);
        free(r->env[i].value);
    }
    free(r->env);
    sl_timing_free(&r->timing);
    sl_likwid_free(&r->likwid);
    memset(r, 0, sizeof *r);
}

int sl_run_add_env(sl_run *r, const char *name, const char *value)
{
    if (SL_VEC_RESERVE(r->env, r->capenv, r->nenv, 1) < 0)
        return -ENOMEM;
    char *n = strdup(name), *v = strdup(value ? value : "");
    if (!n || !v) {
        free(n);
        free(v);
        return -ENOMEM;
    }
    r->env[r->nenv].name = n;
    r->env[r->nenv].value = v;
    r->nenv++;
    return 0;
}
