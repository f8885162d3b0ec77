/* Where the helpers are and how they are started (see helpers.h). */
#include "helpers.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#ifndef SL_HELPER_REL_INSTALLED
#define SL_HELPER_REL_INSTALLED "../libexec"
#endif

extern char **environ;

/* The shim's own file, resolved once when it is loaded: LD_PRELOAD may name
 * it by a relative path, which a later chdir() would point elsewhere. */
static char *self_at_load;

__attribute__((constructor)) static void resolve_self(void)
{
    Dl_info info;
    /* Any function of the shim names its file. */
    if (dladdr((void *)(uintptr_t)&resolve_self, &info) && info.dli_fname &&
        info.dli_fname[0])
        self_at_load = realpath(info.dli_fname, NULL);
}

char *sl_self_path(void)
{
    return self_at_load ? strdup(self_at_load) : NULL;
}

static char *check_exec(const char *path, char **problem)
{
    if (access(path, X_OK) == 0)
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
        else if (access(cand[i], X_OK) == 0)
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

/* In a setuid or setgid program the helpers run with its privileges: they
 * get a fixed environment, never the user's (HDF5_PLUGIN_PATH and the like
 * name code to load). */
static char *const secure_env[] = {"PATH=/usr/bin:/bin", NULL};

char **sl_helper_environ(void)
{
    char *self = sl_self_path();
    char **env = sl_helper_env(getauxval(AT_SECURE) ? secure_env : environ, self);
    free(self);
    return env;
}

int sl_helper_run(const char *const argv[], double timeout_s, sl_spawn_result *res)
{
    char **env = sl_helper_environ();
    if (!env) {
        memset(res, 0, sizeof *res);
        res->outcome = SL_SPAWN_FAILED;
        res->error = ENOMEM;
        return -ENOMEM;
    }
    int rc = sl_spawn_run(argv, env, timeout_s, 0, res);
    sl_env_free(env);
    return rc;
}
