/* Internal header: not installed. The rescue file: the whole run in the wire
 * format, saved by the application's process before the writer helper is
 * started, so that nothing the writer does (crash, hang, missing HDF5) can
 * lose the data: "scope-likwid convert" turns it into the result file. */
#ifndef SL_SHIM_RESCUE_H
#define SL_SHIM_RESCUE_H

#include <stddef.h>
#include <sys/types.h>

#include "run.h"

/* Saves run as "<output>.rescue", else "$TMPDIR/<base>.<pid>.<k>.rescue",
 * else the same in /tmp; created exclusively, never through a symlink.
 * Returns the path (newly allocated), or NULL with the first reason in why. */
char *sl_rescue_write(const sl_run *run, const char *output, pid_t pid, char *why,
                      size_t why_len);

#endif
