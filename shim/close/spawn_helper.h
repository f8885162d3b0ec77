/* Internal header: not installed. Running a helper program (collector,
 * writer) from inside the application without disturbing it: a clone child
 * without exit signal (never fork; no SIGCHLD, never returned by the
 * application's wait()), no inherited descriptors but the pipes, default
 * signal dispositions and an empty mask, a deadline that does not count
 * time the process was stopped, output capped. */
#ifndef SL_SHIM_SPAWN_H
#define SL_SHIM_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* spawn_child.c, all async-signal-safe. A helper runs as the child of a
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
} sl_child;
/* Starts path with argv and envp: stdin /dev/null, stdout out_fd and
 * stderr err_fd (-1: /dev/null), no other descriptor, every signal at its
 * default and none blocked. 0, or -errno (also when its execve failed). */
int sl_child_start(sl_child *c, void *map, const char *path, char *const argv[],
                   char *const envp[], int out_fd, int err_fd);
/* 1 when the helper has ended (*status: its wait status), 0 while it runs
 * (block: wait until it ends), -errno. */
int sl_child_poll(sl_child *c, int *status, int block);
/* SIGKILL to the helper (still to be waited for). */
void sl_child_kill(sl_child *c);

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

#endif
