/* Internal header: not installed. Reading a whole file into memory, with
 * libc only (used by the shim too). */
#ifndef SL_FILEIO_H
#define SL_FILEIO_H

#include <stddef.h>
#include <sys/stat.h>

/* Reads the regular file at path into a newly allocated buffer (NUL-terminated
 * after *len bytes). Refuses directories and other non-regular files
 * (-EISDIR / -EINVAL) and files over max_bytes (-EFBIG; 0 = no limit).
 * Returns 0 or negative errno. */
int sl_read_file(const char *path, size_t max_bytes, char **buf, size_t *len);

/* Opens path only when it is a regular file (flags: the access mode and
 * extras such as O_APPEND): a symbolic link in its last component is not
 * followed, a FIFO is never waited for, a device never opened for what it
 * is. The descriptor (close-on-exec; *st filled when st is not NULL), or
 * -errno: -ELOOP a symbolic link, -EINVAL not a regular file. */
int sl_open_regular(const char *path, int flags, struct stat *st);

/* What a file of mode m is, for a message: "a FIFO", "a character device",
 * "a symbolic link", "a directory", ... */
const char *sl_mode_kind(mode_t m);

#endif
