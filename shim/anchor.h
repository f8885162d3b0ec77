/* Internal header: not installed. What Close needs from the file system,
 * held from Init (docs/SHIM.md, "Held from Init"): the root directory and
 * the result's directory as descriptors, so that the names the shim took
 * at Init mean at Close what they meant then, whatever the process did
 * meanwhile (chroot, chdir, a mount). Held descriptors are close-on-exec,
 * moved to 64 or above where RLIMIT_NOFILE allows, closed in a forked
 * child, and checked before each use (device and inode): one the
 * application closed, or whose number it reused, is never touched again
 * and is taken again by its path while the root is still Init's.
 * Everything but sl_anchor_take is async-signal-safe. */
#ifndef SL_ANCHOR_H
#define SL_ANCHOR_H

#include <sys/stat.h>
#include <sys/types.h>

/* At Init (and in a forked child as it adopts): the root and the directory
 * of output (absolute). Nothing is said when they cannot be had (a full
 * descriptor table): every use then goes by path. */
void sl_anchor_take(const char *output);

/* A path as it was at Init (absolute): a name in the result's directory
 * relative to its descriptor; any other path, once the process changed its
 * root, relative to the root of Init; else as it is. -1 with errno. */
int sl_at_open(const char *path, int flags, mode_t mode);
int sl_at_unlink(const char *path);
int sl_at_stat(const char *path, struct stat *st, int flags);  /* fstatat's flags */
int sl_at_access(const char *path, int mode);
/* renameat2's flags (RENAME_NOREPLACE). */
int sl_at_rename(const char *from, const char *to, unsigned flags);

/* Whether the names of Init now resolve inside a new root: the process
 * changed its root and the old one is not held (the application closed
 * it, or it was never had). A file made by name then lies inside it. */
int sl_anchor_lost(void);

/* The root of Init when the process has changed its root since and it is
 * held, else -1: a helper returns to it before its exec (its paths, its
 * interpreter and libraries are those of Init). */
int sl_anchor_old_root(void);

/* The result file made for output before the process changed its user
 * (user_change.c), held: fd is kept (moved up), path its name. */
void sl_anchor_hold_result(int fd, const char *path, const char *output);
/* Its descriptor when it was made for output and is still held (path: its
 * name), else -1. */
int sl_anchor_result(const char *output, const char **path);
/* Its name when one was made for output, held or not any more (the
 * application closed it); NULL: none was made. */
const char *sl_anchor_result_name(const char *output);
/* Done with it (written, or given up): closed and forgotten. */
void sl_anchor_result_release(void);

#endif
