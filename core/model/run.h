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

/* The run's metadata (written as /metadata, docs/FORMAT.md). Integers are
 * -1 and strings "" when unknown (convert of a marker file knows little). */
typedef struct sl_run_meta {
    int64_t mpi_size;           /* the launcher's world size; 1 outside MPI */
    int64_t omp_num_threads;    /* first value of OMP_NUM_THREADS, else the threads seen */
    int64_t start_time_ns;      /* on timing.clock: at Init, <= the first call */
    int64_t finalize_time_ns;   /* on timing.clock: at Close, >= the last end */
    char *working_directory;
    char *user;
    int64_t uid;                /* the user's uid, -1 unknown: a writer names an empty user by it */
    char *run_id;               /* shared by every process of one launch (FORMAT.md) */
    size_t nvars, capvars;
    sl_env_var *vars;           /* the run's SLURM_* variables */
} sl_run_meta;

typedef struct sl_run {
    int64_t rank;               /* group rank<R>: MPI rank, 0 outside MPI */
    int64_t mpi_rank;           /* -1 outside MPI */
    int64_t pid;                /* -1 when unknown (convert) */
    int64_t parent_pid;         /* a forked child: its parent's pid; 0: none or unknown */
    char *hostname;             /* "" when unknown */
    char *executable;
    char *command_line;
    char *likwid_status;        /* which source was used, each fallback and why */
    /* where it ran, read at Init; "" and 0 when unknown */
    char *cpu_model;            /* /proc/cpuinfo's "model name" */
    char *kernel_release;       /* uname's release */
    char *clock_source;         /* the kernel's current clocksource ("tsc", "kvm-clock") */
    int64_t tsc_hz;             /* the TSC's ticks per second (CPUID 0x15) */
    char *likwid_version;       /* of the liblikwid the application loaded; "" unknown */
    size_t nenv, capenv;
    sl_env_var *env;            /* the run's LIKWID_* variables */
    sl_timing timing;           /* always written; may hold no regions */
    sl_likwid likwid;           /* written when likwid.source != SL_SOURCE_NONE */
    sl_run_meta meta;           /* carried shim -> rescue file -> writer */
    /* Filled by the reader only (h5read.c), "" otherwise: the rank group's
     * name in the file ("rank1"; "rank0.1" in a format-1 merged file) and
     * where `scope-likwid merge` took it from (input file as given, group
     * name there), "" when the group was never merged. */
    char *group;
    char *merged_from;
    char *merged_from_group;
} sl_run;

/* All strings "" (never NULL), rank 0, mpi_rank -1, pid -1, empty tables. */
int sl_run_init(sl_run *r);
void sl_run_free(sl_run *r);
int sl_run_add_env(sl_run *r, const char *name, const char *value);
/* Appends a SLURM_* variable to the metadata. */
int sl_run_meta_add_var(sl_run_meta *m, const char *name, const char *value);
void sl_run_meta_free(sl_run_meta *m);
/* Metadata defaults: -1 integers, "" strings, no variables. */
int sl_run_meta_init(sl_run_meta *m);

#endif
