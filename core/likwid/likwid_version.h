/* Internal header: not installed. The version of a loaded liblikwid, for
 * the collector (which reads with it) and the shim (which records it and
 * follows its behaviour where versions differ: docs/SHIM.md). */
#ifndef SL_LIKWID_VERSION_H
#define SL_LIKWID_VERSION_H

#include <stddef.h>

/* "5.5.1" from the library's own likwid_get{Major,Minor,Bugfix}Version (5.3
 * on), else "5.2" from its soname (liblikwid.so.5.2), into out (n bytes);
 * "unknown" and -ENOENT when neither says. handle: a dlopen() handle of the
 * library (RTLD_NOLOAD of a loaded one loads nothing). 0 or -ENOENT. */
int sl_likwid_version(void *handle, char *out, size_t n);

/* The minor version of "5.x..." (5.2 -> 2), -1 for another or "unknown". */
int sl_likwid_minor(const char *version);

#endif
