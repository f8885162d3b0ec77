/* Internal header: not installed. The shim's group ground/: process state, the environment read (config, ranks), the result's name,
 * process facts. */
#ifndef SL_GROUND_H
#define SL_GROUND_H

#include "say.h"
#include "provenance.h"
#include "user_name.h"
#include "helper_host.h"

#pragma GCC visibility push(hidden)

/* The shim's configuration, read once from
 * the environment at likwid_markerInit. Every bad value gives one warning and
 * the default; nothing here can fail. */
enum {
    SL_SRC_FULL_API = 1u << 0,
    SL_SRC_MARKER_FILE = 1u << 1,
    SL_SRC_MARKER_API = 1u << 2,
    SL_SRC_ALL = SL_SRC_FULL_API | SL_SRC_MARKER_FILE | SL_SRC_MARKER_API,
};

#define SL_DEFAULT_TIMEOUT_S 10.0
#define SL_DEFAULT_MAX_CALLS 1000

typedef struct sl_config {
    int disabled;           /* SCOPE_LIKWID_DISABLE=1: pure pass-through */
    int verbose;            /* SCOPE_LIKWID_VERBOSE=1 */
    int quiet;              /* SCOPE_LIKWID_QUIET=1 */
    double timeout_s;       /* SCOPE_LIKWID_TIMEOUT, > 0 */
    unsigned sources;       /* SCOPE_LIKWID_SOURCES, SL_SRC_* bits */
    int64_t max_calls;      /* SCOPE_LIKWID_MAX_CALLS, >= 0 */
    char *output;           /* SCOPE_LIKWID_OUTPUT template, NULL: default */
    char *collector;        /* SCOPE_LIKWID_COLLECTOR, NULL: next to the shim */
    char *writer;           /* SCOPE_LIKWID_WRITER, NULL: next to the shim */
    int keep_args;          /* SCOPE_LIKWID_ARGS (default 1): the command line's arguments */
} sl_config;

/* Only SCOPE_LIKWID_DISABLE (checked before anything else is done). */
int sl_config_disabled(void);

/* A boolean variable (core/bool_word.h): def when unset; a value not
 * understood gets one warning in the process and def. */
int sl_env_bool(const char *name, int def);

/* Reads all variables; the strings are copies (the application may change
 * its environment later). */
void sl_config_load(sl_config *c);
void sl_config_free(sl_config *c);

/* Parsers, exposed for the tests. Each returns 0 or -EINVAL (then *out is
 * left unchanged). */
int sl_parse_timeout(const char *s, double *out);
int sl_parse_max_calls(const char *s, int64_t *out);
/* Unknown names are warned about and skipped; an empty result is -EINVAL. */
int sl_parse_sources(const char *s, unsigned *out);

/* Where the result file goes: the MPI rank
 * from the launcher's environment and the SCOPE_LIKWID_OUTPUT template. */
typedef struct sl_output_vars {
    int64_t rank;           /* %r */
    int64_t pid;            /* %p */
    const char *host;       /* %h */
    const char *job;        /* %j, NULL: no batch job ("nojob") */
    const char *user;       /* %u, NULL: unknown ("nouser") */
    int64_t unix_s;         /* %d (YYYY-MM-DD) and %t (HHMMSS), UTC, of Init */
    const char *cwd;        /* relative results are resolved against it; NULL: keep relative */
} sl_output_vars;

/* Rank from the first set variable of PMI_RANK, OMPI_COMM_WORLD_RANK,
 * PMIX_RANK, SLURM_PROCID, MV2_COMM_WORLD_RANK, MPI_LOCALRANKID, ALPS_APP_PE,
 * PALS_RANKID (Slurm's only inside a step: SLURM_STEP_ID set). Returns 1 and
 * sets *rank when one holds a rank (a garbage value is warned about and the
 * next variable tried), 0 outside MPI and in a world of one process
 * (sl_world_size_from_env() == 1: an MPI singleton). */
int sl_rank_from_env(int64_t *rank);

/* The MPI world size from the first of OMPI_COMM_WORLD_SIZE, PMI_SIZE,
 * PMIX_SIZE, SLURM_NTASKS (inside a step), MV2_COMM_WORLD_SIZE, PALS_SIZE
 * that holds a positive count; -1 when none does. */
int64_t sl_world_size_from_env(void);

/* Whether the output template tmpl uses %u (a "%%u" is a literal "%u"):
 * only then is the user's name looked up inside the application, at Init
 * (user_name.h: it may load the site's NSS modules); otherwise the writer
 * names the uid for /metadata. */
int sl_output_needs_user(const char *tmpl);

/* Whether SCOPE_LIKWID_EXCLUDE (':'-separated shell patterns) matches exe
 * (an absolute path) or its last component: such a program is left alone
 * (pass-through, nothing said), for a site-wide preload. */
int sl_excluded(const char *patterns, const char *exe);

/* Default template: "scope-likwid-rank%r.h5" under MPI, "scope-likwid-%p.h5"
 * otherwise; in a batch job the job id first ("scope-likwid-%j-rank%r.h5",
 * "scope-likwid-%j-%p.h5"), so reruns in one directory never collide. */
const char *sl_output_default(int mpi, int job);

/* Expands %r %p %h %j %u %d %t %%; an unknown %x (or a lone % at the end)
 * is warned about and kept literally. Newly allocated; NULL on ENOMEM. */
char *sl_output_expand(const char *tmpl, const sl_output_vars *v);

/* Where the result goes for what SCOPE_LIKWID_OUTPUT expanded to (path;
 * taken over, freed or returned): a directory, or a name ending in '/', gets
 * the default name (sl_output_default) inside it; the directories of a name
 * not there yet are created (mode sl_dir_mode(), whatever the umask);
 * /dev/null means no result file: NULL with *no_result set, said once;
 * another file that is not a regular one (a device, FIFO, socket) is
 * refused with one line and the default name in v->cwd is used (nothing is
 * created next to it). A directory another user could change
 * (sl_dir_trusted) is not used: one line, and the same name in a spare
 * directory (sl_spare_dir), else no result file (*no_result). NULL without
 * *no_result on ENOMEM. */
char *sl_output_place(char *path, int mpi, const sl_output_vars *v, int *no_result);

/* The name of a file derived from output: "<dir>/<stem>.<what><N>" and
 * ".h5" when output has it, kept within NAME_MAX (a later cycle's file:
 * what "cycle"; a forked child's: "pid"). NULL: no memory. */
char *sl_output_derived(const char *output, const char *what, long long n);

/* The result's name, written only here (sl_g.output, sl_g.first_output):
 * at Init from the expanded template (taken over; see sl_output_place),
 * the first cycle's kept for the later ones, a later cycle's and a forked
 * child's (derived with sl_output_derived, taken over). */
void sl_name_result_init(char *expanded, const sl_output_vars *v, int *no_result);
void sl_name_result_first(void);
void sl_name_result_cycle(char *out);
void sl_name_result_fork(char *out);

/* The shim's state and the one internal path
 * that the C and the Fortran entry points share. */
enum sl_mode {
    SL_MODE_IDLE = 0,   /* before likwid_markerInit: pass-through */
    SL_MODE_ACTIVE,     /* timing, hazards answered */
    SL_MODE_CLOSED,     /* after Close (or exit): everything answered by the shim */
    SL_MODE_PASS,       /* SCOPE_LIKWID_DISABLE=1, /dev/null output: pass-through */
    SL_MODE_FORKED,     /* a child forked while ACTIVE, not timing yet (end/forked.c) */
    SL_MODE_ADOPTING,   /* that child becoming ACTIVE with its own file and journal */
    SL_MODE_FORKED_CLOSED,  /* a child forked during or after Close: pass-through
                             * until its own Init, which adopts it (end/forked.c) */
};

typedef struct sl_state {
    sl_config cfg;
    pid_t pid;                  /* the process that times: the only one that writes */
    pid_t parent_pid;           /* a forked child: the process it was forked from; else 0 */
    char *parent_journal;       /* a forked child: the journal its parent had at the fork */
    int tsc;                    /* the hot path's clock is the TSC */
    int mpi;                    /* a rank variable was set */
    int64_t rank;               /* 0 outside MPI */
    char *output;               /* absolute path of the result file */
    int64_t origin_unix_ns;     /* CLOCK_REALTIME - CLOCK_MONOTONIC at Init */
    int counting;               /* LIKWID_FILEPATH/MODE/EVENTS/THREADS all set */
    char *not_counting;         /* why not ("LIKWID_FILEPATH not set: ..."), or NULL */
    int ngroups;                /* '|'-separated sets in LIKWID_EVENTS */
    int cycle;                  /* Init..Close cycle, 1 for the first (end/cycle.c) */
    char *first_output;         /* the first cycle's result file; later ones derive theirs */
    sl_provenance prov;         /* CPU, kernel, clock: read at Init */
    char *run_id;               /* /metadata's run_id (sl_run_id_from_env), at Init */
    char *user;                 /* %u's user (sl_user_name), at Init, for a %u only */
    uid_t uid;                  /* the real uid at Init: /metadata's user (named by the writer) */
} sl_state;

extern sl_state sl_g;
extern _Atomic int sl_mode;
extern _Atomic int sl_in_real_init;     /* LIKWID's Init running (it may end the process) */
extern _Atomic int sl_next_group_calls;

/* state.c: who ends this cycle. sl_close_claim: 1 for the one caller (Close
 * or the exit hook) that finishes the cycle, which it marks CLOSED; 0 for
 * every later one. sl_deliver_in_from: the writer's inputs from g. */
int sl_close_claim(void);
void sl_close_rearm(void);          /* a new cycle may be closed again */
/* Waits while another thread delivers this cycle's result (Close is one
 * at a time). */
void sl_close_await(void);
/* The calling thread delivers this cycle's result (on) / is done (off);
 * async-signal-safe (the signal handler delivers too). */
void sl_close_delivering(int on);
/* scope-profiler's omp_num_threads as far as it is known without the
 * timing (FORMAT.md): OMP_NUM_THREADS, else omp_get_max_threads() of a
 * loaded OpenMP runtime, else the CPUs the process may run on; -1. */
int64_t sl_omp_threads_known(void);

/* Calls fn(ctx, name, value) for every environment variable whose name
 * starts with prefix (the run record's LIKWID_* and /metadata's SLURM_*). */
void sl_each_env(const char *prefix, void (*fn)(void *ctx, const char *name, const char *value),
                 void *ctx);

/* Close or the exit hook delivers in the calling thread (on) / is done
 * (off): a signal in another thread waits for it instead of writing. */
void sl_signals_finishing(int on);

/* The thread in Close or the exit hook (sl_signals_finishing), 0: none. */
pid_t sl_finisher(void);

/* env.c: every environment variable the shim reads. The config at Init
 * (above); these where they are used, each at its moment. */
void sl_env_counting(void);         /* sl_g.counting, not_counting, ngroups at Init */
char **sl_env_all(void);
enum {
    SL_ENV_LIKWID_FILEPATH,
    SL_ENV_OMP_NUM_THREADS,
    SL_ENV_EXCLUDE,
    SL_ENV_REBIND,
    SL_ENV_RUN_REPORT,
};
const char *sl_env(int var);
/* A positive count at the start of s, else -1 (as_openmp: OMP_NUM_THREADS's
 * reading; else digits only). */
int64_t sl_leading_count(const char *s, int as_openmp);
void sl_env_run_host(const char **addr, const char **key);
const char *sl_env_job(void);
char *sl_env_run_id(const char *host, pid_t pid, int64_t unix_ns, int mpi);
/* The spare directories (os.h), noted once from TMPDIR: at the first Init,
 * or at the first use of one before it. */
void sl_env_spare_dirs_note(void);
const char *sl_spare_dir(int i);

#pragma GCC visibility pop

#endif
