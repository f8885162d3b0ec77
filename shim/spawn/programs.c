/* Which helper program, and with which environment: found next to the
 * shim (never through PATH), LD_PRELOAD without the shim; a helper run to
 * its end, or started ahead of what it is fed. */
#include "spawn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Paths as at Init (os.h): after a chroot, the helper runs from the
 * root of Init (helper_main). */
static char *check_exec(const char *path, char **problem)
{
    if (sl_at_access(path, X_OK) == 0)
        return strdup(path);
    int e = errno, n;
    /* On the heap: Close may run on a thread with a small stack. */
    if (e == ENOENT || e == ENOTDIR)
        n = asprintf(problem, "not found: %s", path);
    else
        n = asprintf(problem, "not executable: %s (%s)", path, strerror(e));
    if (n < 0)
        *problem = NULL;
    return NULL;
}

char *sl_helper_path(const char *override, const char *name, char **problem)
{
    *problem = NULL;
    if (override)
        return check_exec(override, problem);
    char *self = sl_self_path();
    if (!self) {
        *problem = strdup("not found: the shim's own path is unknown");
        return NULL;
    }
    char *slash = strrchr(self, '/');
    *slash = '\0';
    const char *rel[] = {SL_HELPER_REL_INSTALLED, "../helpers"};
    char *cand[2] = {NULL, NULL};      /* on the heap: no large stack buffer */
    char *found = NULL;
    for (int i = 0; i < 2 && !found; i++)
        if (asprintf(&cand[i], "%s/%s/%s", self, rel[i], name) < 0)
            cand[i] = NULL;
        else if (sl_at_access(cand[i], X_OK) == 0)
            found = strdup(cand[i]);
    free(self);
    /* Neither there: report the installed location. */
    if (!found && cand[0])
        found = check_exec(cand[0], problem);
    else if (!found)
        *problem = strdup("not found: out of memory");
    free(cand[0]);
    free(cand[1]);
    return found;
}

/* The application's environment: no helper runs in a setuid or setgid
 * program (Init leaves it alone), so it is the user's own. */
char **sl_helper_environ(void)
{
    char *self = sl_self_path();
    char **env = sl_helper_env(sl_env_all(), self);
    free(self);
    return env;
}

int sl_helper_start_fed(const char *const argv[], sl_spawn_job *job)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return -errno;
    sv[0] = sl_spawn_above_stdio(sv[0]);
    sv[1] = sl_spawn_above_stdio(sv[1]);
    char **env = sv[0] >= 0 && sv[1] >= 0 ? sl_helper_environ() : NULL;
    sl_spawn_result res = {0};
    *job = (sl_spawn_job){.out = -1, .err = -1, .feed = -1};
    int rc = sv[0] < 0 || sv[1] < 0 ? -EMFILE
             : !env                 ? -ENOMEM
                                    : sl_spawn_begin(argv, env, 0, 0, sv[1], job, &res);
    sl_env_free(env);
    if (sv[1] >= 0)
        close(sv[1]);
    if (rc != 0) {
        sl_spawn_result_free(&res);
        if (sv[0] >= 0)
            close(sv[0]);
        return rc;
    }
    job->feed = sv[0];
    return 0;
}

int sl_helper_run_in(const char *const argv[], double timeout_s, int in_fd, sl_spawn_result *res)
{
    char **env = sl_helper_environ();
    if (!env) {
        memset(res, 0, sizeof *res);
        res->outcome = SL_SPAWN_FAILED;
        res->error = ENOMEM;
        return -ENOMEM;
    }
    int rc = sl_spawn_run_in(argv, env, timeout_s, 0, in_fd, res);
    sl_env_free(env);
    return rc;
}

int sl_helper_run(const char *const argv[], double timeout_s, sl_spawn_result *res)
{
    return sl_helper_run_in(argv, timeout_s, -1, res);
}

static int is_our_lib(const char *entry, size_t len, const char *self_real)
{
    static const char name[] = "libscope_likwid.so";
    const size_t nlen = sizeof name - 1;
    size_t b = len;
    while (b > 0 && entry[b - 1] != '/')
        b--;
    size_t blen = len - b;
    if (blen >= nlen && memcmp(entry + b, name, nlen) == 0 &&
        (blen == nlen || entry[b + nlen] == '.'))
        return 1;
    if (!self_real || len >= PATH_MAX)
        return 0;
    /* Paths on the heap: no large stack buffer. */
    char *path = strndup(entry, len), *real = path ? realpath(path, NULL) : NULL;
    int same = real && strcmp(real, self_real) == 0;
    free(real);
    free(path);
    return same;
}

char *sl_ld_preload_clean(const char *value, const char *self_path, int *oom)
{
    *oom = 0;
    char *sr = self_path ? realpath(self_path, NULL) : NULL;
    size_t vlen = strlen(value);
    char *out = malloc(vlen + 1);
    if (!out) {
        free(sr);
        *oom = 1;
        return NULL;
    }
    size_t n = 0;
    const char *p = value;
    while (*p) {
        size_t len = strcspn(p, " :\t");
        if (len && !is_our_lib(p, len, sr)) {
            if (n)
                out[n++] = ':';
            memcpy(out + n, p, len);
            n += len;
        }
        p += len;
        if (*p)
            p++;
    }
    out[n] = '\0';
    free(sr);
    if (!n) {
        free(out);
        return NULL;
    }
    return out;
}

void sl_env_free(char **env)
{
    if (!env)
        return;
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
}

/* What execve takes: one string of at most MAX_ARG_STRLEN bytes (32
 * pages, its NUL included), and argv and envp together (strings and
 * pointers) within a quarter of the stack limit (sysconf's ARG_MAX). An
 * application may set a variable of any size after Init (a 200 KiB one:
 * "Argument list too long", and no helper): such strings are left out of a
 * helper's environment, the longest first, so that the rest fits with
 * room for argv (SL_HELPER_ARGV_ROOM). None is the helpers' business. */
#define MAX_ARG_STRLEN_BYTES ((size_t)32 * 4096)
#define SL_HELPER_ARGV_ROOM ((size_t)3 * PATH_MAX + 4096)

static size_t env_budget(void)
{
    long arg_max = sysconf(_SC_ARG_MAX);
    size_t limit = arg_max > 0 ? (size_t)arg_max : (size_t)128 << 10;
    return limit > SL_HELPER_ARGV_ROOM * 2 ? limit - SL_HELPER_ARGV_ROOM : limit / 2;
}

/* Leaves out of env (NULL-terminated, k entries) the longest strings until
 * the rest fits the budget; each one too long alone goes first. */
static void env_fit(char **env, size_t k)
{
    size_t total = sizeof(char *), budget = env_budget();
    for (size_t i = 0; i < k; i++) {
        size_t len = strlen(env[i]) + 1;
        if (len > MAX_ARG_STRLEN_BYTES) {
            sl_log_debug("a helper's environment leaves out a %zu-byte variable", len);
            free(env[i]);
            env[i] = NULL;
        } else {
            total += len + sizeof(char *);
        }
    }
    while (total > budget) {
        size_t longest = k, longest_len = 0;
        for (size_t i = 0; i < k; i++)
            if (env[i] && strlen(env[i]) > longest_len) {
                longest = i;
                longest_len = strlen(env[i]);
            }
        if (longest == k)
            break;
        sl_log_debug("a helper's environment leaves out a %zu-byte variable", longest_len + 1);
        free(env[longest]);
        env[longest] = NULL;
        total -= longest_len + 1 + sizeof(char *);
    }
    size_t w = 0;
    for (size_t i = 0; i < k; i++)
        if (env[i])
            env[w++] = env[i];
    env[w] = NULL;
}

char **sl_helper_env(char *const environ_[], const char *self_path)
{
    size_t n = 0;
    while (environ_ && environ_[n])
        n++;
    char **env = calloc(n + 4, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    int failed = 0;
    for (size_t i = 0; i < n && !failed; i++) {
        const char *e = environ_[i];
        if (strncmp(e, "SCOPE_LIKWID_DISABLE=", 21) == 0 ||
            strncmp(e, SL_WRITE_KEY_ENV "=", sizeof SL_WRITE_KEY_ENV) == 0)
            continue;
        if (strncmp(e, "LD_PRELOAD=", 11) == 0) {
            int oom;
            char *clean = sl_ld_preload_clean(e + 11, self_path, &oom);
            if (oom)
                failed = 1;
            else if (clean) {
                env[k] = malloc(11 + strlen(clean) + 1);
                if (env[k]) {
                    memcpy(env[k], "LD_PRELOAD=", 11);
                    strcpy(env[k] + 11, clean);
                    k++;
                } else {
                    failed = 1;
                }
                free(clean);
            }
            continue;
        }
        if (!(env[k++] = strdup(e)))
            failed = 1;
    }
    if (failed) {
        sl_env_free(env);
        return NULL;
    }
    env_fit(env, k);
    for (k = 0; env[k]; k++)
        ;
    if (!(env[k] = strdup("SCOPE_LIKWID_DISABLE=1"))) {
        sl_env_free(env);
        return NULL;
    }
    /* the key the writer proves its result with (proof.c) */
    if (sl_proof_env()[0] && !(env[++k] = strdup(sl_proof_env()))) {
        sl_env_free(env);
        return NULL;
    }
    return env;
}
