/* Internal header: not installed. Everything one process's result file holds:
 * the rank group's attributes, the shim's timing and LIKWID's counters. */
#ifndef SL_RUN_H
#define SL_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "likwid_result.h"
#include "timing.h"

typedef struct sl_env_var {
    char *name;
    char *value;
} sl_env_var;

typedef struct sl_run {
    int64_t rank;               /* group rank<R>: MPI rank, 0 outside MPI */
    int64_t mpi_rank;           /* -1 outside MPI */
    int64_t pid;                /* -1 when unknown (convert) */
    char *hostname;             /* "" when unknown */
    char *executable;
    char *command_line;
    char *likwid_status;        /* which source was used, each fallback and why */
    size_t nenv, capenv;
    sl_env_var *env;            /* the run's LIKWID_* variables */
    sl_timing timing;           /* always written; may hold no regions */
    sl_likwid likwid;           /* written when likwid.source != SL_SOURCE_NONE */
} sl_run;

/* All strings "" (never NULL), rank 0, mpi_rank -1, pid -1, empty tables. */
int sl_run_init(sl_run *r);
void sl_run_free(sl_run *r);
int sl_run_add_env(sl_run *r, const char *name, const char *value);

#endif
