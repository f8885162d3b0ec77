/* Internal header: not installed. Finding and running the shim's helper
 * programs (collector, writer): next to the shim unless the environment
 * names one, never through PATH or the cwd. */
#ifndef SL_SHIM_HELPERS_H
#define SL_SHIM_HELPERS_H

#include "spawn_helper.h"

/* The shim's own file (realpath, taken when the shim was loaded, before any
 * chdir), newly allocated; NULL when unknown. */
char *sl_self_path(void);

/* The helper's path: override when set, else `name` in the installed helper
 * directory or ../tools (the build tree) relative to the shim. NULL with
 * *problem (newly allocated) saying what is wrong: "not found: PATH" or
 * "not executable: PATH (reason)". */
char *sl_helper_path(const char *override, const char *name, char **problem);

/* The helpers' environment (sl_helper_env of the application's, or a fixed
 * one in a setuid program); NULL on ENOMEM. Free with sl_env_free. */
char **sl_helper_environ(void);

/* Runs argv with the application's environment minus the shim (see
 * sl_helper_env). As sl_spawn_run; ENOMEM gives SL_SPAWN_FAILED. */
int sl_helper_run(const char *const argv[], double timeout_s, sl_spawn_result *res);

#endif
