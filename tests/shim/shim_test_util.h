/* Helpers for the shim's unit tests: temporary directories and scripts. */
#ifndef SHIM_TEST_UTIL_H
#define SHIM_TEST_UTIL_H

#include <stddef.h>

/* A new empty directory under /tmp (removed by nobody: /tmp is scratch). */
char *tu_tempdir(void);
/* Writes an executable /bin/sh script dir/name with body; returns its path. */
char *tu_script(const char *dir, const char *name, const char *body);
/* Whole file as a NUL-terminated string, NULL if unreadable. */
char *tu_slurp(const char *path, size_t *len);
int tu_exists(const char *path);

#endif
