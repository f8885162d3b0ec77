/* Internal header: not installed. The shim's group spawn/: the helpers: which program with which environment, running it to its
 * end, the keeper, run's helper host, the writer's proof. */
#ifndef SL_SPAWN_H
#define SL_SPAWN_H

#include "regions.h"
#include <sys/types.h>

#pragma GCC visibility push(hidden)

/* The writer's proof (proof.c, core/mac.h). sl_proof_key_make: a new
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
 * and holds (os/anchor.c), filled by the writer through its stdin: any
 * owner (it was made for the user of Init). */
const char *sl_proof_check_fd(int fd, const char *out, size_t len);

/* Running a helper program (collector,
 * writer) from inside the application without disturbing it: a clone child
 * without exit signal (never fork; no SIGCHLD, never returned by the
 * application's wait()), no inherited descriptors but the pipes, default
 * signal dispositions and an empty mask, a deadline that does not count
 * time the process was stopped, output capped. */
/* keeper.c, all async-signal-safe. A helper runs as the child of a
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
 * default and none blocked, in the root of Init (os/anchor.c); by
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

/* host.c: the helper started by `scope-likwid run`'s helper host
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

/* Reading a helper's pipes until it ends, not until EOF: a process the
 * application forks meanwhile holds the write ends (watch.c). In the poll
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

/* run.c: a pipe, both ends O_CLOEXEC and above fd 2 (an application may
 * have closed 0-2); 0 or -errno. Async-signal-safe. */
int sl_spawn_pipe(int p[2]);

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

/* Finding and running the shim's helper
 * programs (collector, writer): next to the shim unless the environment
 * names one, never through PATH or the cwd. */
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

/* sl_spawn_run with stdin in_fd (-1: /dev/null). */
int sl_spawn_run_in(const char *const argv[], char *const envp[], double timeout_s,
                    size_t max_output, int in_fd, sl_spawn_result *res);
/* The kind of keeper, noted once (at load and at the first Init):
 * valgrind or TSan make it a copy of the process, not a clone sharing it. */
void sl_keeper_kind_note(void);
/* Whether the keeper of c has ended. */
int sl_child_ended(const sl_child *c);

/* The steps taken when the shim is loaded and again by the first Init
 * (a library's constructor may call Init before ours ran): the shim's own
 * file, the keeper's kind; each done once. */
void sl_spawn_at_load(void);

/* watch.c: the one loop reading a helper's two pipes (fds[i] < 0: none
 * or ended) until both end, the helper ended with them empty, or the
 * deadline: take(ctx, i) reads stream i when it is ready and returns 1
 * when it ended (fds[i] then -1; the caller closes what it opened). 1 in
 * time, 0 at the deadline. Async-signal-safe when take is. */
int sl_child_read(sl_child *c, int fds[2], sl_deadline *d, int (*take)(void *ctx, int stream),
                  void *ctx);

/* A helper started ahead of what it is given (the writer at the start of
 * Close, loading HDF5 while the collector runs): its stdin a socket whose
 * other end is feed. sl_helper_start_fed: 0, or -errno (nothing started);
 * sl_spawn_feed: the bytes sent whole, 0 or -errno (EPIPE: it is gone);
 * sl_spawn_finish: feed closed, then as sl_spawn_run from its deadline
 * (returns 0); sl_spawn_dismiss: killed and waited for, not needed.
 * sl_spawn_begin: the first half of sl_spawn_run_in. */
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
int sl_spawn_begin(const char *const argv[], char *const envp[], double timeout_s,
                   size_t max_output, int in_fd, sl_spawn_job *job, sl_spawn_result *res);
/* fd moved above 2 (an application may have closed 0-2), or -1. */
int sl_spawn_above_stdio(int fd);

#pragma GCC visibility pop

#endif
