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

/* The body of a fake writer script that copies the rescue file "$1" to
 * "$2.wire", makes "$2" a result the shim takes as ours (fake_result.c) and
 * then removes the rescue file, as scope-likwid-write does: the run it
 * wrote is then read from "$2.wire". */
#define TU_COPY_WRITER TU_COPY_WRITER_KEEP " && rm -f \"$1\""
/* The same that leaves the rescue file: a writer whose answer the shim
 * must refuse (the rescue file then stays for convert). */
#define TU_COPY_WRITER_KEEP "cp \"$1\" \"$2.wire\" && '" TU_FAKE_RESULT "' \"$2\""

/* What a fake writer wrote to path: path.wire when there is one (the
 * TU_COPY_WRITER's copy), else path itself; as tu_slurp. */
char *tu_slurp_result(const char *path, size_t *len);

#endif
