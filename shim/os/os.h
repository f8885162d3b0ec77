/* Internal header: not installed. The shim's group os/: OS primitives: the clock, the address-space budget, /proc/self/status,
 * spare directories, the roomy stack, the root and the result's directory
 * held from Init. */
#ifndef SL_OS_H
#define SL_OS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <signal.h>
#include <time.h>
#include "timing_collect.h"

#pragma GCC visibility push(hidden)

/* Where the journal, the rescue file and a result go when their own
 * directory will not take them: sl_spare_dir(0) TMPDIR, sl_spare_dir(1)
 * /tmp, each NULL when not there or another user could change what is in
 * it; sl_spare_dir(2) /var/tmp, only for a journal handed to another user
 * (on its file system). Noted once, at the first Init (sl_spare_dirs_note). */
void sl_spare_dirs_note(const char *tmpdir);
int sl_spare_dirs_noted(void);
const char *sl_spare_dir_noted(int i);

/* The root directory at the first Init (sl_root_note), and whether the
 * process has changed it since (chroot: the shim's paths are outside). */
void sl_root_note(void);
int sl_root_changed(void);
/* The process's umask from /proc/self/status, -1 unknown (proc.c). */
long sl_proc_umask(void);
/* What the process may do (proc.c). A seccomp filter can kill the
 * whole process (SIGSYS, a core under the application's name) at a clone
 * or an execve, and its rules cannot be read. sl_sandbox_note (once, at
 * the first Init) notes the seccomp mode and filter count of
 * /proc/self/status; sl_sandbox_since_init (async-signal-safe) is 1 when
 * a filter was installed since (a sandbox entered after setup): then no
 * helper is started. A filter in force at Init (a container's default
 * profile) is taken as allowing them. */
#define SL_ESANDBOX EOPNOTSUPP      /* clone never fails with it */
#define SL_SANDBOX_WHY "a seccomp filter was installed after likwid_markerInit: no helper " \
                       "process is started, a new process could kill the application"
void sl_sandbox_note(void);
int sl_sandbox_since_init(void);
/* The seccomp mode and filter count now (filters -1: the kernel does not
 * say); errno kept. */
void sl_seccomp_read(long *mode, long *filters);
/* A deadline on CLOCK_MONOTONIC that does not count time the process was
 * stopped: the clock is looked at at least every 100 ms, and a step of more
 * than 1 s between two looks (SIGSTOP, ^Z, a batch system's suspend, or a
 * process not scheduled at all) counts as 100 ms. */
typedef struct sl_deadline {
    int64_t left_ns;
    int64_t last_ns;
} sl_deadline;
void sl_deadline_start(sl_deadline *d, double seconds);
/* How long to wait before the next look, in ms (at most 100); 0 once the
 * deadline has passed. */
int sl_deadline_ms(sl_deadline *d);

/* Chooses the hot path's clock, once, at Init, before any thread table
 * exists: the raw TSC when allow_tsc and the CPU and kernel make that
 * exact (see clock.c), else clock_gettime. Returns 1 for the TSC.
 * Either way sl_rt_collect gives CLOCK_MONOTONIC ns. */
int sl_rt_clock_init(int allow_tsc);

/* Address-space budget of the sample chunks and the journal's pieces: a
 * quarter of RLIMIT_AS (SIZE_MAX without a limit); sl_rt_reserve takes
 * bytes from it (1) or finds no room (0), sl_rt_unreserve gives them back. */
size_t sl_rt_budget(void);
int sl_rt_reserve(size_t bytes);
void sl_rt_unreserve(size_t bytes);
/* For the journal: Init's (TSC, CLOCK_MONOTONIC) pair and one taken now;
 * zeros without the TSC. */
void sl_rt_clock_pairs(int64_t *tick0, int64_t *ns0, int64_t *tick1, int64_t *ns1);

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
 * (face/user_change.c), held: fd is kept (moved up), path its name. */
void sl_anchor_hold_result(int fd, const char *path, const char *output);
/* Its descriptor when it was made for output and is still held (path: its
 * name), else -1. */
int sl_anchor_result(const char *output, const char **path);
/* Its name when one was made for output, held or not any more (the
 * application closed it); NULL: none was made. */
const char *sl_anchor_result_name(const char *output);
/* Done with it (written, or given up): closed and forgotten. */
void sl_anchor_result_release(void);

/* The hot path's clock (os/clock.c). */

/* Whether the hot path stores TSC ticks (fixed at sl_rt_clock_init). */
int sl_rt_clock_tsc(void);
/* The unit tests' sl_rt_clock_init: the TSC on any x86-64 (1), else 0. */
int sl_rt_clock_force_tsc(void);

/* The conversion from Init's pair to a pair taken now (off without the TSC). */
sl_tick_line sl_rt_conv_now(void);

/* CLOCK_REALTIME - CLOCK_MONOTONIC now: a cycle's origin (os/clock.c). */
int64_t sl_origin_unix_ns(void);

/* CLOCK id now in ns: the one body of every clock read of the shim
 * (async-signal-safe). */
static inline int64_t sl_clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* fn called on a stack with room (os/room.c): Close and the exit path
 * called from a handler on a small alternate signal stack. */
void sl_with_room(void (*fn)(void));

/* sigguard.c: sig blocked in this thread (sl_sig_hold), then the mask
 * restored (sl_sig_release), the one raised meanwhile taken back first when
 * take_back and none was pending before. Async-signal-safe. */
typedef struct sl_sig_held {
    int sig;
    sigset_t old;
    int was_pending;
} sl_sig_held;
void sl_sig_hold(int sig, sl_sig_held *h);
void sl_sig_release(sl_sig_held *h, int take_back);

/* files.c: a small text file (/proc's), at most max bytes, on the heap;
 * NULL when it cannot be read. Trailing NULs dropped (and newlines with
 * SL_TEXT_STRIP_NEWLINE); with SL_TEXT_FIRST_ONLY only up to the first NUL
 * (a command line's program); with SL_TEXT_NUL_TO_BLANK NULs made blanks
 * (a command line's arguments). */
enum { SL_TEXT_NUL_TO_BLANK = 1u, SL_TEXT_FIRST_ONLY = 2u, SL_TEXT_STRIP_NEWLINE = 4u };
char *sl_read_text(const char *path, size_t max, unsigned flags);

/* files.c: a new file of the shim's at a name of Init (sl_at_open),
 * created exclusively, never through a symlink, close-on-exec, the owner's
 * alone (flags: its access, O_RDWR or O_WRONLY, and any more). */
int sl_at_create_private(const char *path, int flags);

#pragma GCC visibility pop

#endif
