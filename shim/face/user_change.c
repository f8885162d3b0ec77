/* A change of user after Init (docs/SHIM.md, "Held from Init"). A service
 * started as root that drops to another user loses the rights Close needs:
 * to create the result in a directory that user may not write, to remove
 * the journal from it, to append to run's report. So setuid, seteuid,
 * setreuid and setresuid are wrapped: before the real call, while the
 * process still has those rights, the result file is made at its name
 * (the user's of Init, held open: the writer fills it through its stdin,
 * os.h), the journal is handed to the new user (moved where that user
 * may remove it) and run's report is held open. Once, in the process that
 * times, while it times and runs as root. The group calls change no right over files the
 * process has as root, and are not wrapped. A change past these functions
 * (a raw system call) is not seen: Close then falls back as without them,
 * and its lines say where the timing is. */
#include "face.h"
#include "name_fit.h"
#include "trusted_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*id1_fn)(uid_t);
typedef int (*id2_fn)(uid_t, uid_t);
typedef int (*id3_fn)(uid_t, uid_t, uid_t);

static struct {
    id1_fn setuid, seteuid;
    id2_fn setreuid;
    id3_fn setresuid;
} real;

static uid_t init_euid;
static gid_t init_egid;
/* 0 not yet, the pid of the process preparing, -1 done */
static _Atomic pid_t state;

/* Looked up when the shim is loaded (and by the first Init, which a
 * library's constructor may call first). */
void sl_user_change_resolve(void)
{
    if (real.setuid)
        return;
    void *p[4] = {dlsym(RTLD_NEXT, "setuid"), dlsym(RTLD_NEXT, "seteuid"),
                  dlsym(RTLD_NEXT, "setreuid"), dlsym(RTLD_NEXT, "setresuid")};
    memcpy(&real.seteuid, &p[1], sizeof p[1]);
    memcpy(&real.setreuid, &p[2], sizeof p[2]);
    memcpy(&real.setresuid, &p[3], sizeof p[3]);
    memcpy(&real.setuid, &p[0], sizeof p[0]);
}

void sl_user_change_arm(void)
{
    sl_user_change_resolve();
    init_euid = geteuid();
    init_egid = getegid();
}

/* The result file at its name (a free numbered one beside a taken name, as
 * the writer chooses), the user's of Init, held. None: Close falls back. */
static void make_result(const char *output)
{
    for (unsigned k = 0; k < 10000; k++) {
        char *name = k ? sl_name_numbered(output, k) : strdup(output);
        int fd = name ? sl_at_create_private(name, O_RDWR | O_NOCTTY) : -1;
        int e = errno;
        if (fd >= 0) {
            /* its mode whatever the umask, its owner whatever setgid did */
            if (fchmod(fd, sl_result_mode()) != 0 || fchown(fd, init_euid, init_egid) != 0)
                sl_log_debug("result %s made for the change of user keeps its mode or owner",
                             name);
            sl_anchor_hold_result(fd, name, output);
            sl_log_debug("result %s made before the change of user", name);
        }
        free(name);
        if (fd >= 0 || e != EEXIST)
            return;
    }
}

/* Whether uid reaches dir (every directory on the way searchable by it:
 * its own, or everybody's; groups are not counted) and may remove a file
 * of its own in it (dir sticky and everybody's to write, or uid's own). */
static int fit_for(const char *dir, uid_t uid)
{
    char *p = dir && dir[0] == '/' ? strdup(dir) : NULL;
    struct stat st;
    int ok = p && sl_at_stat("/", &st, 0) == 0;
    for (size_t i = 1, n = p ? strlen(p) : 0; ok && i <= n; i++) {
        if (i < n && p[i] != '/')
            continue;
        char c = p[i];
        p[i] = '\0';
        ok = p[i - 1] == '/' || sl_at_stat(p, &st, 0) == 0;   /* "//": the same again */
        p[i] = c;
        ok = ok && S_ISDIR(st.st_mode) && (st.st_mode & (st.st_uid == uid ? S_IXUSR : S_IXOTH));
    }
    ok = ok && (((st.st_mode & S_ISVTX) && (st.st_mode & S_IWOTH)) ||
                (st.st_uid == uid && (st.st_mode & S_IWUSR)));
    free(p);
    return ok;
}

/* The journal where user `to` may remove it: where it is, else moved to
 * the first spare directory that fits (TMPDIR, /tmp, /var/tmp; on its
 * file system), and given to `to`. */
static void hand_journal(uid_t to)
{
    const char *j = sl_journal_path();
    char *jdir = j[0] ? sl_dir_of(j) : NULL;
    int rc = -ENOENT, moved = 0;
    if (jdir && fit_for(jdir, to))
        rc = sl_journal_give(to, NULL, sl_g.output, sl_g.pid);
    for (int i = 0; jdir && rc != 0 && i < 3; i++)
        if (sl_spare_dir(i) && fit_for(sl_spare_dir(i), to))
            moved = (rc = sl_journal_give(to, sl_spare_dir(i), sl_g.output, sl_g.pid)) == 0;
    free(jdir);
    if (moved) {
        sl_sigwrite_prepare(sl_journal_path(), sl_g.output, sl_g.cfg.writer, sl_g.cfg.timeout_s);
        sl_run_report("journal", sl_journal_path());
    }
    sl_log_debug("user %u to %u: journal %s (%s)", (unsigned)geteuid(), (unsigned)to,
                 sl_journal_path(), moved ? "moved" : rc == 0 ? "in place" : strerror(-rc));
}

static void hand_over(uid_t to)
{
    sl_run_report_hold();
    make_result(sl_g.output);
    hand_journal(to);
}

/* Before the real call that makes `to` the effective user (-1: it stays),
 * in a process running as root (another's call fails: nothing to prepare). */
static void prepare(uid_t to)
{
    if (to == (uid_t)-1 || geteuid() != 0 || to == 0 ||
        atomic_load(&sl_mode) != SL_MODE_ACTIVE || getpid() != sl_g.pid)
        return;
    int saved = errno;
    pid_t me = getpid(), idle = 0;
    if (atomic_compare_exchange_strong(&state, &idle, me)) {
        hand_over(to);
        atomic_store(&state, -1);
    }
    /* another thread prepares: this change of user waits for it (a forked
     * child's never: nobody prepares in it) */
    while (atomic_load(&state) == me)
        sched_yield();
    errno = saved;
}

#define CALL(fn, ...) (real.fn ? real.fn(__VA_ARGS__) : (errno = ENOSYS, -1))

SL_EXPORT int setuid(uid_t uid)
{
    prepare(uid);
    return CALL(setuid, uid);
}

SL_EXPORT int seteuid(uid_t euid)
{
    prepare(euid);
    return CALL(seteuid, euid);
}

SL_EXPORT int setreuid(uid_t ruid, uid_t euid)
{
    prepare(euid);
    return CALL(setreuid, ruid, euid);
}

SL_EXPORT int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
    prepare(euid);
    return CALL(setresuid, ruid, euid, suid);
}
