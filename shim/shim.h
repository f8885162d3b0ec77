/* Internal header: not installed. The shim's one header: what its files
 * share (the hot path's inlined structures are in hot_path.h, the list of
 * marker functions in marker_fns.h). */
#ifndef SL_SHIM_H
#define SL_SHIM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "marker_fns.h"
#include "journal.h"
#include "likwid_result.h"
#include "provenance.h"
#include "run.h"
#include "timing.h"
#include "user_name.h"

/* ==== config ==== */
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

/* ==== log ==== */
/* The shim's messages: stderr, prefix
 * "scope-likwid: ", one line each written with a single write(2) so they never
 * interleave with the application's stdio. Values from the environment are
 * only ever passed as arguments, never as the format. */
/* verbose: debug lines on; quiet: warnings and the "wrote" line off. Which
 * file stderr is (device, inode) is remembered when the library is loaded: a
 * line is written only while fd 2 is still that file, and never raises
 * SIGPIPE. */
void sl_log_configure(int verbose, int quiet);
/* Takes fd 2 as it is now as the stderr to write to: the library
 * constructor's step (a test that moves fd 2 in-process calls it again). */
void sl_log_take_stderr(void);
int sl_log_verbose(void);

/* A warning; each distinct text is printed at most once per process. */
void sl_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An informational line (silenced by quiet). */
void sl_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A debug line (only with verbose). */
void sl_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A line already formatted ("scope-likwid: ...\n"), written as the others
 * (silenced by quiet); async-signal-safe, for the signal handler. */
void sl_log_line_raw(const char *line, size_t n);

/* ==== output path ==== */
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

/* Where the journal, the rescue file and a result go when their own
 * directory will not take them: sl_spare_dir(0) TMPDIR, sl_spare_dir(1)
 * /tmp, each NULL when not there or another user could change what is in
 * it; sl_spare_dir(2) /var/tmp, only for a journal handed to another user
 * (on its file system). Noted once, at the first Init (sl_spare_dirs_note). */
void sl_spare_dirs_note(void);
const char *sl_spare_dir(int i);

/* The name of a file derived from output: "<dir>/<stem>.<what><N>" and
 * ".h5" when output has it, kept within NAME_MAX (a later cycle's file:
 * what "cycle"; a forked child's: "pid"). NULL: no memory. */
char *sl_output_derived(const char *output, const char *what, long long n);

/* ==== proof ==== */
/* The writer's proof (shim/proof.c, core/mac.h). sl_proof_key_make: a new
 * key, at Init (a forked child keeps its parent's); sl_proof_env: the
 * helpers' "SCOPE_LIKWID_WRITE_KEY=<hex>" ("" without a key). */
void sl_proof_key_make(void);
const char *sl_proof_env(void);
/* Whether path is a result the writer whose stdout is out (len bytes)
 * wrote for this process: a regular file of this user, HDF5's signature,
 * the writer's proof. NULL when it is; else why not (a fixed text).
 * Async-signal-safe. */
const char *sl_proof_check(const char *path, const char *out, size_t len);
/* The same for the result this process made before it changed its user
 * and holds (anchor.h), filled by the writer through its stdin: any
 * owner (it was made for the user of Init). */
const char *sl_proof_check_fd(int fd, const char *out, size_t len);

/* ==== user change ==== */
/* user_change.c: the user and group of Init noted (at Init), for what is
 * made before a change of user. */
void sl_user_change_arm(void);

/* ==== run's report ==== */
/* `scope-likwid run` sets SCOPE_LIKWID_RUN_REPORT to a file it created and
 * reads after the application: each process appends "KIND\tPID\tPATH\n"
 * for its result's name and its journal at Init ("init", "journal"), the
 * result it wrote ("wrote"), the rescue file it left ("rescue") and the
 * file of a batch of Init..Close cycles ("batch"), so run names exactly
 * these files. */
/* Takes the variable (at Init; read with secure_getenv). */
void sl_run_report_take(void);
/* Before a change of user (user_change.c): the file held open from now on,
 * for this process and its forked children (run's user's file). */
void sl_run_report_hold(void);
/* Appends one line when the variable named a file at Init; never creates
 * it; errno kept; async-signal-safe (the signal handler reports its result). */
void sl_run_report(const char *kind, const char *path);

/* ==== one copy ==== */
/* One shim per process: with two copies of
 * libscope_likwid.so loaded (two paths in LD_PRELOAD, `scope-likwid run`
 * with a copy already preloaded), the first in the global scope gets the
 * application's calls and times them; it skips the other copy when it looks
 * for LIKWID (real.c), and the later copy makes itself pass-through when it
 * is loaded. */
/* Whether addr lies in another copy of the shim; its file name into path
 * (len bytes, cut to fit) when so. */
int sl_other_copy_at(const void *addr, char *path, size_t len);

/* ==== real ==== */
/* LIKWID's real C marker functions, found
 * on first use with dlsym(RTLD_NEXT), or else in a liblikwid.so* loaded
 * RTLD_LOCAL (see real.c). Every member is NULL while LIKWID is not found:
 * callers then do the shim's part only, and the next call looks again. The
 * Fortran entry points are never used: they call the C ones through the PLT
 * and would come back into our wrappers. */
/* One pointer per row of SL_MARKER_FNS, named by its member column. */
#define SL_REAL_SLOT(cname, member, ret, params, args, fname, fshape, errno_) ret(*member) params;
typedef struct sl_real_api {
    SL_MARKER_FNS(SL_REAL_SLOT)
} sl_real_api;
#undef SL_REAL_SLOT

/* Thread-safe; never NULL itself. Once LIKWID is found the answer never
 * changes; until then it is the all-NULL table. */
const sl_real_api *sl_real(void);

/* The file of a second copy of the shim that the lookup skipped (it stays
 * out: shim.h), or NULL. */
const char *sl_real_other_copy(void);

/* Whether path names liblikwid: its file name starts with "liblikwid.so"
 * (liblikwid.so, liblikwid.so.5.2; not liblikwidpin.so). */
int sl_real_is_likwid(const char *path);

/* The path of the library holding r's functions, malloc'd; NULL: none. */
char *sl_real_library(const sl_real_api *r);
/* Its LIKWID version ("5.5.1", "5.2"; "unknown"), into out (n bytes). */
void sl_real_likwid_version(const sl_real_api *r, char *out, size_t n);
/* What LIKWID at library set up when it started here: the clock it
 * measured (timer_getCycleClock, timer_getCpuClock) in decimal Hz, empty
 * when it has none; the access daemon its configuration found, on the
 * heap, NULL when none (or no clock). */
typedef struct sl_likwid_setup {
    char cycle_hz[24], cpu_hz[24];
    char *accessd;
} sl_likwid_setup;
void sl_real_likwid_setup(const char *library, sl_likwid_setup *out);

/* ==== shim ==== */
/* The shim's state and the one internal path
 * that the C and the Fortran entry points share. */
enum sl_mode {
    SL_MODE_IDLE = 0,   /* before likwid_markerInit: pass-through */
    SL_MODE_ACTIVE,     /* timing, hazards answered */
    SL_MODE_CLOSED,     /* after Close (or exit): everything answered by the shim */
    SL_MODE_PASS,       /* SCOPE_LIKWID_DISABLE=1, /dev/null output: pass-through */
    SL_MODE_FORKED,     /* a child forked while ACTIVE, not timing yet (entry.c) */
    SL_MODE_ADOPTING,   /* that child becoming ACTIVE with its own file and journal */
    SL_MODE_FORKED_CLOSED,  /* a child forked during or after Close: pass-through
                             * until its own Init, which adopts it (entry.c) */
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
    int cycle;                  /* Init..Close cycle, 1 for the first (close.c) */
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

/* The internal path behind each entry point (marker.c): sl_shim_<member>
 * for every row of SL_MARKER_FNS. */
#define SL_SHIM_DECL(cname, member, ret, params, args, fname, fshape, errno_) ret sl_shim_##member params;
SL_MARKER_FNS(SL_SHIM_DECL)
#undef SL_SHIM_DECL

/* close.c: the Close sequence. sl_close_claim: 1 for the one caller (Close
 * or the exit hook) that finishes the cycle, which it marks CLOSED; 0 for
 * every later one. sl_deliver_in_from: the writer's inputs from g. */
struct sl_deliver_in;
void sl_close_run(void);
int sl_close_claim(void);
void sl_close_rearm(void);          /* a new cycle may be closed again */
/* Waits while another thread delivers this cycle's result (Close is one
 * at a time). */
void sl_close_await(void);
/* The calling thread delivers this cycle's result (on) / is done (off);
 * async-signal-safe (the signal handler delivers too). */
void sl_close_delivering(int on);
/* The root directory at the first Init (sl_root_note), and whether the
 * process has changed it since (chroot: the shim's paths are outside). */
void sl_root_note(void);
int sl_root_changed(void);
void sl_deliver_in_from(const sl_state *g, struct sl_deliver_in *in);

/* close.c: the exit path without Close. sl_exit_hook_arm (at Init)
 * registers the early hook, an atexit handler that writes the result before
 * the application's earlier exit handlers and static destructors run;
 * sl_close_at_exit is the library destructor's part when the early hook
 * did not run. A Close after the early hook (from such a handler or
 * destructor) calls sl_exit_superseded, which removes the early result. */
void sl_exit_hook_arm(void);
void sl_close_at_exit(void);
void sl_exit_superseded(void);
/* entry.c, before and after (it failed) the real exec: the result of
 * the image so far is delivered (what: the program, for the status), and
 * removed again when the exec returns. Both keep errno. */
void sl_exec_begin(const char *what);
void sl_exec_failed(const char *what);

/* entry.c: the atfork handler (registered at Init); the child's adoption,
 * at its first Init, ThreadInit, Register or Start while FORKED (returns
 * the mode now); after a child's own result was delivered, its parent's
 * journal when the parent ended without delivering it. */
void sl_fork_arm(void);
int sl_fork_adopt(void);
void sl_fork_deliver_parent(void);

/* close.c: Init after Close starts cycle N+1 (its own result file).
 * Called by Init in the initialising process while the mode is CLOSED and
 * the previous Close has finished; returns 1 when the new cycle may become
 * ACTIVE. */
int sl_cycle_begin(void);
/* LIKWID's functions for the current cycle: the real ones in every cycle,
 * as without the shim (LIKWID 5.2 to 5.4 start afresh at each Init). */
const struct sl_real_api *sl_cycle_api(void);
/* Close and the exit hook, when their cycle's result is delivered. */
void sl_cycle_close_done(void);
/* A forked child begins its cycle 1. */
void sl_cycle_fork_child(void);

/* The steps of the shim's constructors (its own path, the keeper's
 * kind; the real exec functions), each done once: also run by the first
 * Init, which a library's constructor may call before ours ran. */
void sl_spawn_at_load(void);
void sl_entry_at_load(void);

/* ==== spawn helper ==== */
/* Running a helper program (collector,
 * writer) from inside the application without disturbing it: a clone child
 * without exit signal (never fork; no SIGCHLD, never returned by the
 * application's wait()), no inherited descriptors but the pipes, default
 * signal dispositions and an empty mask, a deadline that does not count
 * time the process was stopped, output capped. */
/* spawn.c, all async-signal-safe. A helper runs as the child of a
 * keeper process that shares our memory and sends no SIGCHLD (the
 * application's wait() never sees either). map: SL_CHILD_MAP bytes from
 * sl_child_map (the two stacks and the shared state; NULL when it cannot
 * be mapped), kept until the helper was waited for. */
#define SL_CHILD_MAP ((size_t)64 << 10)
void *sl_child_map(void);
void sl_child_unmap(void *map);
typedef struct sl_child {
    void *map;
    pid_t keeper;               /* -1 once waited for */
    int host;                   /* the connection to run's helper host, or -1 */
} sl_child;
/* Starts path with argv and envp: stdin in_fd, stdout out_fd and stderr
 * err_fd (each -1: /dev/null), no other descriptor, every signal at its
 * default and none blocked, in the root of Init (anchor.h); by
 * `scope-likwid run`'s helper host when there is one, it accepts and there
 * is no in_fd (timeout_s: its deadline should the application be gone),
 * else through the keeper. 0, or -errno (also when
 * its execve failed); -SL_ESANDBOX, without trying, when the process
 * entered a seccomp sandbox since Init (sl_sandbox_since_init). */
/* SL_CHILD_OUTLIVE_TERM: the writer at a terminating signal. It starts
 * with SIGTERM, SIGINT and SIGHUP ignored (through its execve), so that
 * the rest of the round (a batch system signals every process of the job,
 * and more than once) cannot stop it, and always through the keeper:
 * `scope-likwid run`, whose host would start it, gets the same signals. */
#define SL_CHILD_OUTLIVE_TERM 1
int sl_child_start(sl_child *c, void *map, const char *path, char *const argv[],
                   char *const envp[], int in_fd, int out_fd, int err_fd, double timeout_s,
                   int flags);
/* 1 when the helper has ended (*status: its wait status), 0 while it runs
 * (block: wait until it ends), -errno. */
int sl_child_poll(sl_child *c, int *status, int block);
/* SIGKILL to the helper (still to be waited for); never to a pid the
 * keeper may have reaped already. */
void sl_child_kill(sl_child *c);
/* A pidfd of the keeper (readable once it ended), or -1. */
int sl_child_pidfd(const sl_child *c);

/* spawn_host.c: the helper started by `scope-likwid run`'s helper host
 * (core/helper_host.h), async-signal-safe. sl_host_take (at Init) notes
 * SCOPE_LIKWID_RUN_HOST. sl_host_child_start: 1 started by the host
 * (c->host is the connection), 0 no host or it refused (start it here),
 * -ETIMEDOUT the host took the request and did not answer. The others as
 * sl_child_poll and sl_child_kill; _ended: the host's answer (or its end)
 * is there to read. */
void sl_host_take(void);
int sl_host_configured(void);   /* SCOPE_LIKWID_RUN_HOST was taken at Init */
int sl_host_child_start(sl_child *c, const char *path, char *const argv[], char *const envp[],
                        int out_fd, int err_fd, double timeout_s);
int sl_host_child_poll(sl_child *c, int *status, int block);
void sl_host_child_kill(sl_child *c);
int sl_host_child_ended(const sl_child *c);
/* The process's umask from /proc/self/status, -1 unknown (spawn.c). */
long sl_proc_umask(void);

/* Reading a helper's pipes until it ends, not until EOF: a process the
 * application forks meanwhile holds the write ends (spawn.c). In the poll
 * loop: _add appends the pidfd to pf (room for one more) and may shorten
 * ms; _over, after the pipes' revents were handled (got: any had some),
 * is 1 once the helper ended and nothing more is in the pipes. */
struct pollfd;
typedef struct sl_child_watch {
    sl_child *c;
    int pidfd;
    int ended;
} sl_child_watch;
void sl_child_watch_start(sl_child_watch *w, sl_child *c);
unsigned long sl_child_watch_add(sl_child_watch *w, struct pollfd *pf, unsigned long n, int *ms);
int sl_child_watch_over(sl_child_watch *w, const struct pollfd *pf, unsigned long n, int got);
void sl_child_watch_end(sl_child_watch *w);

/* What the process may do (spawn.c). A seccomp filter can kill the
 * whole process (SIGSYS, a core under the application's name) at a clone
 * or an execve, and its rules cannot be read. sl_sandbox_note (once, at
 * the first Init) notes the seccomp mode and filter count of
 * /proc/self/status; sl_sandbox_since_init (async-signal-safe) is 1 when
 * a filter was installed since (a sandbox entered after setup): then no
 * helper is started. A filter in force at Init (a container's default
 * profile) is taken as allowing them. */
#define SL_ESANDBOX EOPNOTSUPP      /* clone never fails with it */
#define SL_SANDBOX_WHY "a seccomp filter was installed after likwid_markerInit: no helper " \
                       "process is started, a new process could kill the application"
void sl_sandbox_note(void);
int sl_sandbox_since_init(void);
/* The seccomp mode and filter count now (filters -1: the kernel does not
 * say); errno kept. */
void sl_seccomp_read(long *mode, long *filters);

/* spawn.c: a pipe, both ends O_CLOEXEC and above fd 2 (an application may
 * have closed 0-2); 0 or -errno. Async-signal-safe. */
int sl_spawn_pipe(int p[2]);

/* A deadline on CLOCK_MONOTONIC that does not count time the process was
 * stopped: the clock is looked at at least every 100 ms, and a step of more
 * than 1 s between two looks (SIGSTOP, ^Z, a batch system's suspend, or a
 * process not scheduled at all) counts as 100 ms. */
typedef struct sl_deadline {
    int64_t left_ns;
    int64_t last_ns;
} sl_deadline;
void sl_deadline_start(sl_deadline *d, double seconds);
/* How long to wait before the next look, in ms (at most 100); 0 once the
 * deadline has passed. */
int sl_deadline_ms(sl_deadline *d);

typedef enum sl_spawn_outcome {
    SL_SPAWN_EXITED,        /* exit_code valid */
    SL_SPAWN_SIGNALED,      /* signal valid */
    SL_SPAWN_TIMED_OUT,     /* killed with SIGKILL at the deadline */
    SL_SPAWN_NO_STATUS,     /* waitpid failed (ECHILD: reaped with __WALL by someone else) */
    SL_SPAWN_FAILED,        /* could not start: error valid */
} sl_spawn_outcome;

typedef struct sl_spawn_result {
    sl_spawn_outcome outcome;
    int exit_code;
    int signal;
    int error;              /* positive errno for SL_SPAWN_FAILED */
    char *out;              /* stdout, NUL-terminated, never NULL after sl_spawn_run */
    size_t out_len;
    char *err;              /* stderr, NUL-terminated */
    size_t err_len;
    int truncated;          /* output exceeded the cap */
} sl_spawn_result;

#define SL_SPAWN_MAX_OUTPUT ((size_t)256 << 20)

/* Runs argv[0] (a path, not searched in PATH) with envp; waits at most
 * timeout_s seconds (not counting time stopped) for both pipes to reach
 * EOF and the helper to exit. max_output caps each
 * stream (0: SL_SPAWN_MAX_OUTPUT). Returns 0 when the program ran (see
 * res->outcome), or a negative errno when it could not be started (then
 * outcome is SL_SPAWN_FAILED too). Free res with sl_spawn_result_free. */
int sl_spawn_run(const char *const argv[], char *const envp[], double timeout_s,
                 size_t max_output, sl_spawn_result *res);
void sl_spawn_result_free(sl_spawn_result *res);

/* One line for a status text, e.g. "exited with status 1: <last stderr line>",
 * "killed by signal 11 (stderr: ...)", "timed out after 10 s",
 * "could not be started: No such file or directory". Newly allocated. */
char *sl_spawn_describe(const sl_spawn_result *res, double timeout_s);

/* The last non-empty line of s (len bytes), newly allocated ("" if none). */
char *sl_last_line(const char *s, size_t len);

/* LD_PRELOAD value without the shim: entries (separated by blanks or ':')
 * whose file name is libscope_likwid.so[.*] or that resolve to self_path are
 * dropped, others kept in order. Returns NULL when nothing is left (the
 * variable should be unset); *oom set on allocation failure. */
char *sl_ld_preload_clean(const char *value, const char *self_path, int *oom);

/* The environment for a helper: environ with LD_PRELOAD cleaned as above and
 * SCOPE_LIKWID_DISABLE=1 set. NULL-terminated, newly allocated (free with
 * sl_env_free); NULL on ENOMEM. */
char **sl_helper_env(char *const environ_[], const char *self_path);
void sl_env_free(char **env);

/* ==== helpers ==== */
/* Finding and running the shim's helper
 * programs (collector, writer): next to the shim unless the environment
 * names one, never through PATH or the cwd. */
/* The shim's own file (realpath, taken when the shim was loaded, before any
 * chdir), newly allocated; NULL when unknown. */
char *sl_self_path(void);

/* The helper's path: override when set, else `name` in the installed helper
 * directory or ../tools (the build tree) relative to the shim. NULL with
 * *problem (newly allocated) saying what is wrong: "not found: PATH" or
 * "not executable: PATH (reason)". */
char *sl_helper_path(const char *override, const char *name, char **problem);

/* The helpers' environment (sl_helper_env of the application's); NULL on
 * ENOMEM. Free with sl_env_free. */
char **sl_helper_environ(void);

/* Runs argv with the application's environment minus the shim (see
 * sl_helper_env). As sl_spawn_run; ENOMEM gives SL_SPAWN_FAILED. */
int sl_helper_run(const char *const argv[], double timeout_s, sl_spawn_result *res);
/* The same with stdin in_fd (-1: /dev/null). */
int sl_helper_run_in(const char *const argv[], double timeout_s, int in_fd, sl_spawn_result *res);
/* A helper started ahead of what it is given (the writer at the start of
 * Close, loading HDF5 while the collector runs): its stdin a socket whose
 * other end is feed. sl_helper_start_fed: 0, or -errno (nothing started);
 * sl_spawn_feed: the bytes sent whole, 0 or -errno (EPIPE: it is gone);
 * sl_spawn_finish: feed closed, then as sl_spawn_run from its deadline
 * (returns 0); sl_spawn_dismiss: killed and waited for, not needed. */
typedef struct sl_spawn_job {
    sl_child child;
    void *map;
    int out, err;               /* our ends of its stdout and stderr */
    int feed;                   /* our end of its stdin, -1: none */
    size_t max_output;
} sl_spawn_job;
int sl_helper_start_fed(const char *const argv[], sl_spawn_job *job);
int sl_spawn_feed(sl_spawn_job *job, const char *s, size_t n);
int sl_spawn_finish(sl_spawn_job *job, double timeout_s, sl_spawn_result *res);
void sl_spawn_dismiss(sl_spawn_job *job);

/* ==== status text ==== */
/* The likwid_status text Close builds up:
 * "a; b; c", one piece per source tried and why it failed or was used. */
typedef struct sl_text {
    char *s;                    /* NULL while empty */
} sl_text;

/* Appends one piece (cut at 1 KiB); on ENOMEM the piece is lost, not the text. */
void sl_text_add(sl_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ==== sources ==== */
/* Where Close gets LIKWID's counters from,
 * best first: the collector helper (full_api: LIKWID's own reader in a
 * separate process), the shim's marker-file reader (marker_file), the
 * closing thread's GetRegion snapshots taken just before LIKWID's Close
 * (marker_api). Each step adds to the status text what it did and why. */
/* What the chain needs to know, passed in by Close. */
typedef struct sl_sources_in {
    const char *markerfile;     /* LIKWID_FILEPATH */
    unsigned sources;           /* SL_SRC_* bits allowed */
    const char *collector;      /* SCOPE_LIKWID_COLLECTOR, NULL: next to the shim */
    const char *liblikwid;      /* the application's liblikwid, NULL: unknown */
    double timeout_s;           /* the collector's deadline */
    const char *snap_why;       /* why there are no snapshots, NULL: none taken */
} sl_sources_in;

/* GetRegion of every region the calling thread started, for group `group`,
 * into snap (source marker_api when any). Before LIKWID's Close. LIKWID
 * 5.2 to 5.4 (by_group) add a region to what they write for a GetRegion
 * of one they do not have: a region the thread started in another group,
 * or any on a CPU other than its own (they keep regions per CPU). So
 * there only regions it started in `group`, and only when the thread is
 * bound to one CPU. NULL, or why nothing was taken. */
const char *sl_snapshots_take(const sl_real_api *r, int64_t group, int by_group,
                              sl_likwid *snap);

/* The chain after LIKWID's Close: fills lw (empty on entry) from the first
 * source that works; snap (the snapshots) is moved into lw when it is the
 * one. Returns 1 when lw holds counters. */
int sl_sources_collect(const sl_sources_in *in, sl_likwid *snap, sl_likwid *lw,
                       sl_text *status);

/* The steps, one file each. */
/* At each cycle's Init: notes LIKWID_FILEPATH's file as it is then, and
 * the time; sl_source_markerfile_ok judges the file at Close against it. */
void sl_markerfile_note_init(void);
int sl_source_markerfile_ok(const char *path, sl_text *status);
int sl_source_collector(const sl_sources_in *in, sl_likwid *lw, sl_text *status);
int sl_source_markerfile(const char *path, sl_likwid *lw, sl_text *status);

/* ==== deliver ==== */
/* The end of every path that yields a result
 * (Close, the exit hook): the run record is filled, saved as a rescue file,
 * and the writer helper turns it into the result file. */
/* The process and the destination, fixed at Init; passed in by the caller. */
typedef struct sl_deliver_in {
    const char *output;         /* absolute path of the result file */
    pid_t pid;
    pid_t parent_pid;           /* a forked child's parent, else 0 */
    int mpi;                    /* a rank variable was set */
    int64_t rank;               /* 0 outside MPI */
    int64_t origin_unix_ns;     /* CLOCK_REALTIME - CLOCK_MONOTONIC at Init */
    const char *writer;         /* SCOPE_LIKWID_WRITER, NULL: next to the shim */
    double timeout_s;           /* the writer's base deadline */
    const char *likwid_version; /* of the application's liblikwid (Close), NULL: unknown */
    sl_spawn_job *early;        /* the writer started at Close, awaiting its data, or NULL */
} sl_deliver_in;

/* close.c: fills run with the process's identity, its LIKWID_*
 * variables, the region timing of every thread (sl_rt_collect), the counters
 * (moved out of lw) and the status text. */
void sl_run_record_fill(sl_run *run, const sl_deliver_in *in, sl_likwid *lw,
                        const char *status);

/* close.c: record, rescue file, writer; one "wrote" line or one warning
 * that names what is left (the rescue file and the convert command).
 * 0 when the result or the rescue file exists, -1 when nothing was saved. */
int sl_deliver(const sl_deliver_in *in, sl_likwid *lw, const char *status);

/* The same, for a result that a later one may replace (the exit hook's,
 * close.c): the "wrote" line is left to the caller, and *out gets the
 * file left behind (newly allocated, the other NULL): the result file, or
 * the rescue file when the writer failed (then the warning was printed). */
typedef struct sl_delivered {
    char *written;
    char *rescue;
} sl_delivered;
int sl_deliver_keep(const sl_deliver_in *in, sl_likwid *lw, const char *status,
                    sl_delivered *out);

/* ==== rescue ==== */
/* The rescue file: the whole run in the wire
 * format, saved by the application's process before the writer helper is
 * started, so that nothing the writer does (crash, hang, missing HDF5) can
 * lose the data: "scope-likwid convert" turns it into the result file. */
/* Saves run as "<output>.rescue", else "$TMPDIR/<base>.<pid>.<k>.rescue",
 * else the same in /tmp; created exclusively, never through a symlink.
 * Returns the path (newly allocated), or NULL with the first reason in why. */
char *sl_rescue_write(const sl_run *run, const char *output, pid_t pid, char *why,
                      size_t why_len);

/* ==== run meta ==== */
/* The run's metadata (core/run.h
 * sl_run_meta, written as /metadata): its start is taken at Init, the rest
 * at Close. */
/* Called once from Init: CLOCK_MONOTONIC now is the run's start_time_ns. */
void sl_run_meta_start(void);
/* Called at Close, after the run's timing and mpi_rank are filled: the
 * launcher's world size, OpenMP threads, start and finalize times, working
 * directory, user and SLURM_* variables. Allocates (Close time); a failure
 * leaves a field unknown. */
void sl_run_meta_fill(sl_run *run);

/* scope-profiler's omp_num_threads as far as it is known without the
 * timing (FORMAT.md): OMP_NUM_THREADS, else omp_get_max_threads() of a
 * loaded OpenMP runtime, else the CPUs the process may run on; -1. */
int64_t sl_omp_threads_known(void);

/* Calls fn(ctx, name, value) for every environment variable whose name
 * starts with prefix (close.c: LIKWID_* for the run, SLURM_* here). */
void sl_each_env(const char *prefix, void (*fn)(void *ctx, const char *name, const char *value),
                 void *ctx);

/* ==== journal map ==== */
/* The shim's side of the crash-safe journal
 * (core/journal/journal.h has the format): created at Init next to the result file
 * (else in $TMPDIR or /tmp), mapped MAP_SHARED; the region table puts its
 * per-thread tables, entries and sample arenas in it, so the hot path
 * writes into the file without a system call. Close removes the file (the
 * mapping stays: the tables live in it). */
typedef struct sl_journal_in {
    const char *output;         /* the result file: the journal is "<output>.journal" */
    pid_t pid;
    pid_t parent_pid;           /* a forked child's parent, else 0 */
    int mpi;
    int64_t rank;
    int64_t origin_unix_ns;
    int tsc;                    /* the hot path stores TSC ticks */
    size_t bytes;               /* 0: the default size */
    const sl_provenance *prov;  /* where it runs (NULL: unknown) */
    const char *run_id;         /* NULL: unknown */
} sl_journal_in;

/* Creates and maps the journal; 0, or -errno (then nothing is journaled and
 * everything works as before; the caller warns). */
int sl_journal_begin(const sl_journal_in *in);
/* A later Init..Close cycle's journal (its Init, no thread timing): the
 * pieces of the journal the last Close ended (removed, still mapped: the
 * tables live in them) are copied into a new file for in->output and
 * mapped from it at the same addresses, and the header names the cycle;
 * the threads and regions found outside its pieces are counted as outside
 * it. 0; -ENOENT when the process had no journal (none now either), or
 * -errno. */
int sl_journal_renew(const sl_journal_in *in, int64_t cycle, int64_t outside_tables,
                     int64_t outside_entries);
/* Whether p lies in one of the journal's pieces. */
int sl_journal_holds(const void *p);
/* The journal goes on through a batch of cycles (batch_first..cycle): its
 * header says so, for the status of its result and for the batch file
 * that result replaces. */
void sl_journal_note_cycles(int64_t batch_first, int64_t cycle);
/* The journal's path ("" when there is none, or after sl_journal_end). */
const char *sl_journal_path(void);

/* An object of `bytes` in a new record of `kind` (zeroed, backed on disk),
 * owned by the object `owner` (a thread's, or NULL); NULL when there is no
 * journal or no room. The record counts for readers once sl_journal_commit
 * is called. */
void *sl_journal_alloc(int kind, size_t bytes, const void *owner);
void sl_journal_commit(void *obj);

/* The journal's first record: the run's /metadata as known now, at Init
 * (journal.h, SL_JRN_META; journal_note.c). mpi: the process is an MPI
 * rank. Nothing is written when the journal has no room. */
void sl_journal_note_meta(int mpi);
/* Close (or the exit hook) could save nothing: the journal is what is left. */
void sl_journal_mark_unsaved(void);
/* The rescue file exists and the writer is about to run on it: when the
 * process dies now, an orphaned writer may still deliver the result, and
 * recover must not make a second one (it checks the rescue file). */
void sl_journal_mark_delivering(const char *rescue);
/* A thread's table (entry 0) or a region's entry of a thread in the
 * journal (entry 1) could not be put in the journal (full): counted there. */
void sl_journal_note_outside(int entry);

/* Before the process changes its user to uid (user_change.c), while it
 * may still: the journal is moved into dir (NULL: it stays), as
 * "<base of output>.<pid>.journal", and given to uid. 0, or -errno (EXDEV:
 * dir is on another file system; ENOENT: no journal). */
int sl_journal_give(uid_t uid, const char *dir, const char *output, pid_t pid);

/* The descriptor table is full: gives the journal's kept descriptor up
 * (later pieces reopen the file by its path). 1 when one was closed. */
int sl_journal_spare_fd(void);

/* In a forked child that times regions of its own: the parent's journal
 * (shared with the parent, MAP_SHARED) is never touched again; the child
 * begins its own with sl_journal_begin. */
void sl_journal_fork_forget(void);

/* A terminating signal arrived (async-signal-safe: two stores). */
void sl_journal_mark_signal(int sig);
/* The result was delivered: mark it and remove the file. */
void sl_journal_end(void);

/* ==== survive ==== */
/* What outlives a process that never
 * reaches Close (docs/SHIM.md, "When the process is killed"): the journal,
 * created at Init, and handlers for the terminating signals the application
 * left at their default, which mark the journal, have the writer turn it
 * into the result file, and die of the same signal. */
/* At Init, before the mode becomes ACTIVE (parent_pid 0), and in a forked
 * child that begins to time (its parent's pid, kept in its journal for the
 * result recovered from it). SCOPE_LIKWID_JOURNAL=0: neither.
 * A journal that cannot be created: one warning, everything else as before. */
void sl_survive_begin(const char *output, pid_t pid, pid_t parent_pid, int mpi, int64_t rank,
                      int64_t origin_unix_ns, int tsc, const char *writer, double timeout_s);

/* After the result was delivered (Close, the exit hook): the journal goes. */
void sl_survive_end(void);
/* At the Init of a later cycle with a result of its own: its journal
 * (sl_journal_renew) and the signal handlers again; one warning when it
 * cannot be had. */
void sl_survive_renew(const char *output, pid_t pid, int64_t cycle, int64_t origin_unix_ns,
                      const char *writer, double timeout_s);

/* signals.c: the signals handled (SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGUSR2)
 * where the application has not set a handler or SIG_IGN, in process pid;
 * a second signal waits up to timeout_s for the first one's writer. */
void sl_signals_install(pid_t pid, double timeout_s);
/* The journal's result was delivered (or it is gone): a signal writes nothing. */
void sl_signals_journal_done(void);
/* Close or the exit hook delivers in the calling thread (on) / is done
 * (off): a signal in another thread waits for it instead of writing. */
void sl_signals_finishing(int on);

/* signals.c. At Init: the writer (writer: SCOPE_LIKWID_WRITER or NULL),
 * its argv and environment, its stacks, for the journal's path and the
 * cycle's result (output: a result made for it at a change of user,
 * anchor.h, is filled through the writer's stdin). */
void sl_sigwrite_prepare(const char *journal, const char *output, const char *writer,
                         double timeout_s);
/* In the handler (async-signal-safe): runs the writer on the journal,
 * waits for it at most timeout_s (time stopped not counted; then it is
 * killed), and writes one line: "wrote PATH", or why not and the exact
 * scope-likwid recover command. */
void sl_sigwrite_run(int sig);
/* In the handler, when Close or the exit hook has begun: the recover command. */
void sl_sigwrite_hint(int sig);

/* ==== region table ==== */
/* The shim's own region timing: one table per
 * thread (no locks, no malloc after a tag's first use in that thread), read
 * by Close from any thread while the application may still run regions
 * (every field Close reads is a relaxed atomic or published with release). */
typedef struct sl_rt_entry sl_rt_entry;
typedef struct sl_rt_thread sl_rt_thread;

/* Per-call samples kept per region per thread (>= 0), and the bytes of
 * address space reserved per thread for them (0: the default, 256 MiB;
 * reserved with MAP_NORESERVE and touched on demand). Call before any
 * region is timed. */
void sl_rt_configure(int64_t max_calls, size_t arena_bytes);

/* The calling thread's table, created and registered on first use; NULL only
 * when memory is exhausted (then nothing is timed in that thread). */
sl_rt_thread *sl_rt_self(void);

/* CLOCK_MONOTONIC in ns. */
int64_t sl_rt_now_ns(void);

/* Chooses the hot path's clock, once, at Init, before any thread table
 * exists: the raw TSC when allow_tsc and the CPU and kernel make that
 * exact (see hot_path.c), else clock_gettime. Returns 1 for the TSC.
 * Either way sl_rt_collect gives CLOCK_MONOTONIC ns. */
int sl_rt_clock_init(int allow_tsc);

/* The hot path: the one Start and the one Stop, for the calling thread,
 * timed now (no lock, no malloc after the tag's first use in the thread),
 * with LIKWID's function of the entry point (never NULL: pass a stand-in
 * when LIKWID is absent). Start calls real(tag) first, then times, and
 * returns real's result (a Start of a region already open is counted as
 * nested, the first start kept; no memory: nothing timed). Stop times
 * first, then returns real(tag); -EFAULT, without calling real, when the
 * region is not open or was never started in this thread (counted as an
 * unmatched stop); when the thread has no table (no memory), it cannot
 * judge: real(tag). */
typedef int (*sl_rt_fwd)(const char *);
/* Whether the calling thread has a table (it has unless memory ran out). */
int sl_rt_have_table(void);
int sl_rt_start_fwd(const char *tag, sl_rt_fwd real);
int sl_rt_stop_fwd(const char *tag, sl_rt_fwd real);

/* The entry of tag in t, created when create is set (NULL on ENOMEM, or when
 * absent and !create). */
sl_rt_entry *sl_rt_lookup(sl_rt_thread *t, const char *tag, int create);

/* Whether this thread ever started the region (what makes LIKWID's per-thread
 * Stop/Get/Reset safe to forward). */
int sl_rt_started(const sl_rt_entry *e);
/* Whether the region is open (started, not yet stopped) in its thread. */
int sl_rt_is_open(const sl_rt_entry *e);
/* Counts a stop of a tag this thread has no entry for (creates one). */
void sl_rt_unmatched(sl_rt_thread *t, const char *tag);

/* Calls fn for each tag the thread t ever started (owner thread only);
 * group >= 0: only those started while group was LIKWID's active group
 * (as sl_rt_mark_group recorded). */
void sl_rt_each_started(sl_rt_thread *t, int64_t group, void (*fn)(void *ctx, const char *tag),
                        void *ctx);

/* LIKWID 5.2 to 5.4 keep a region once per group it was started in
 * ("tag-<group>"): at every change of the active group (NextGroup, before
 * it is forwarded) and at Close, every region of every thread started
 * since the last change is marked with `group`, the group active until
 * now. Lock-free; concurrent NextGroups race as they do in LIKWID. */
void sl_rt_mark_group(int64_t group);

/* The calling thread's own completed calls of e and their total time in
 * seconds (what GetRegion answers when LIKWID cannot): the owner reads its
 * own entry and samples, so no lock; cost grows with the samples kept. */
void sl_rt_own(sl_rt_thread *t, const sl_rt_entry *e, int64_t *calls, double *seconds);

/* Fills out (initialised by the caller) with every region of every thread:
 * regions in order of first use, threads in order of registration. Regions
 * only registered are left out. 0 or -ENOMEM. */
int sl_rt_collect(sl_timing *out);

/* Calls not kept as samples for want of room (the sample store full: the
 * per-thread cap, the journal and the pool both exhausted), and in how
 * many threads. */
int64_t sl_rt_room_dropped(size_t *threads);

/* Address-space budget of the sample chunks and the journal's pieces: a
 * quarter of RLIMIT_AS (SIZE_MAX without a limit); sl_rt_reserve takes
 * bytes from it (1) or finds no room (0), sl_rt_unreserve gives them back. */
size_t sl_rt_budget(void);
int sl_rt_reserve(size_t bytes);
void sl_rt_unreserve(size_t bytes);
/* For the journal: Init's (TSC, CLOCK_MONOTONIC) pair and one taken now;
 * zeros without the TSC. */
void sl_rt_clock_pairs(int64_t *tick0, int64_t *ns0, int64_t *tick1, int64_t *ns1);

/* In a forked child, from the atfork handler: no thread has a table (the
 * calling thread's included), so the child starts with empty tables; the
 * parent's are never touched again. */
void sl_rt_fork_child(void);

/* Zeroes every counter of every thread and empties every arena, for a new
 * Init..Close cycle; only while no region is being timed. */
void sl_rt_forget(void);
/* Threads whose table, and regions of the others whose entry, `held`
 * does not hold (the journal's pieces), added to *tables and *entries. */
void sl_rt_count_outside(int (*held)(const void *p), int64_t *tables, int64_t *entries);

#endif
