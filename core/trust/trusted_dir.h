/* Internal header: not installed. The rule for the directories that hold a
 * user's files (docs/SECURITY.md): a directory is trusted when nobody but
 * the user (and root) can change what is in it. libc only: the shim checks
 * its output directory at Init, recover the directory of each journal.
 * Paths stay on the heap (the shim may run on a small stack). */
#ifndef SL_TRUSTED_DIR_H
#define SL_TRUSTED_DIR_H

#include <stddef.h>
#include <sys/types.h>

/* The site setting that shares results with the group. */
#define SL_SHARE_ENV "SCOPE_LIKWID_SHARE"

/* Modes: private by default, group-readable when the site shares. Journals,
 * rescue and batch files are SL_MODE_PRIVATE always. */
#define SL_MODE_PRIVATE 0600
#define SL_MODE_DIR 0700
#define SL_MODE_SHARED 0640
#define SL_MODE_DIR_SHARED 0750

/* 1 when SCOPE_LIKWID_SHARE is "group", 0 when unset or "none", -1 for
 * anything else (the caller says so once, and shares nothing). */
int sl_share_setting(void);

/* The mode of a result file, and of a directory made for one. */
mode_t sl_result_mode(void);
mode_t sl_dir_mode(void);

/* Whether every existing directory on the way to dir (absolute or relative
 * to the working directory), as written and as resolved, is owned by uid or
 * root and not writable by group or others, unless it is sticky (a shared
 * /tmp) or its group is the user's own private group (named after the user,
 * the user's primary group, no other member); a symbolic link on the way
 * must be uid's or root's. 0: trusted; -ENOENT: trusted as far as it exists
 * (the rest can be made); -EPERM: not, with why ("PATH is owned by uid N",
 * "PATH is writable by others") in why (cap bytes); another -errno. */
int sl_dir_trusted(const char *dir, uid_t uid, char *why, size_t cap);

/* Makes the missing directories of dir with mode exactly (whatever the
 * umask), each checked once it is there (someone may make it first), after
 * checking what exists as sl_dir_trusted does. 0, or -errno with why. */
int sl_dir_make(const char *dir, mode_t mode, uid_t uid, char *why, size_t cap);

/* The directory part of path, newly allocated ("." for a bare name, "/"
 * for one at the root); NULL on ENOMEM. */
char *sl_dir_of(const char *path);

#endif
