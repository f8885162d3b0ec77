/* Internal header: not installed. Running a helper program (collector,
 * writer) from inside the application without disturbing it: posix_spawn
 * (never fork), no inherited descriptors but the pipes, default signal
 * dispositions and an empty mask, a deadline, output capped. */
#ifndef SL_SHIM_SPAWN_H
#define SL_SHIM_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

typedef enum sl_spawn_outcome {
    SL_SPAWN_EXITED,        /* exit_code valid */
    SL_SPAWN_SIGNALED,      /* signal valid */
    SL_SPAWN_TIMED_OUT,     /* killed with SIGKILL at the deadline */
    SL_SPAWN_NO_STATUS,     /* waitpid: ECHILD (SIGCHLD ignored, or reaped by the app) */
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
 * timeout_s seconds for both pipes to reach EOF. max_output caps each
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
