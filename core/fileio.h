/* Internal header: not installed. Reading a whole file into memory, with
 * libc only (used by the shim too). */
#ifndef SL_FILEIO_H
#define SL_FILEIO_H

#include <stddef.h>

/* Reads the regular file at path into a newly allocated buffer (NUL-terminated
 * after *len bytes). Refuses directories and other non-regular files
 * (-EISDIR / -EINVAL) and files over max_bytes (-EFBIG; 0 = no limit).
 * Returns 0 or negative errno. */
int sl_read_file(const char *path, size_t max_bytes, char **buf, size_t *len);

#endif
