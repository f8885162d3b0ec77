/* Internal header: not installed. One shim per process: with two copies of
 * libscope_likwid.so loaded (two paths in LD_PRELOAD, `scope-likwid run`
 * with a copy already preloaded), the first in the global scope gets the
 * application's calls and times them; it skips the other copy when it looks
 * for LIKWID (real.c), and the later copy makes itself pass-through when it
 * is loaded. */
#ifndef SL_SHIM_ONE_COPY_H
#define SL_SHIM_ONE_COPY_H

#include <stddef.h>

/* Whether addr lies in another copy of the shim; its file name into path
 * (len bytes, cut to fit) when so. */
int sl_other_copy_at(const void *addr, char *path, size_t len);

#endif
