/* What Close needs from the file system, held from Init (see anchor.h). */
#include "os.h"
#include "trusted_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FD_FLOOR 64     /* above the numbers an application expects to get */

/* One held descriptor: the file it was, and the path to take it again by
 * (NULL: never taken again). */
typedef struct held {
    _Atomic int fd;
    dev_t dev;
    ino_t ino;
    char *path;
    int dir;            /* a directory (O_PATH) */
} held;

static held root_h = {.fd = -1}, dir_h = {.fd = -1}, result_h = {.fd = -1};
/* The result file made before a change of user: its name, and the output
 * it was made for (NULL: none). */
static char *result_name, *result_for;

/* fd moved to FD_FLOOR or above where RLIMIT_NOFILE allows, else above
 * 2 (a helper takes the result as its stdin), close-on-exec; fd itself
 * when it cannot be moved. */
static int move_up(int fd)
{
    int high = fcntl(fd, F_DUPFD_CLOEXEC, FD_FLOOR);
    if (high < 0 && fd <= 2)
        high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (high < 0)
        return fd;
    close(fd);
    return high;
}

static void keep(held *h, int fd)
{
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) != 0) {
        close(fd);
        fd = -1;
    }
    if (fd >= 0) {
        fd = move_up(fd);
        h->dev = st.st_dev;
        h->ino = st.st_ino;
    }
    int old = atomic_exchange(&h->fd, fd);
    if (old >= 0 && old != fd)
        close(old);
}

/* The held descriptor when it is still the file it was; else it is
 * forgotten (never closed: the number is the application's now) and, while
 * the root is Init's, taken again by its path. -1: none. */
static int use(held *h)
{
    int fd = atomic_load(&h->fd);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == h->dev && st.st_ino == h->ino)
        return fd;
    if (fd >= 0)
        atomic_compare_exchange_strong(&h->fd, &fd, -1);
    if (!h->path || sl_root_changed())
        return -1;
    int saved = errno;
    int again = open(h->path, (h->dir ? O_PATH | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
    if (again >= 0 && (fstat(again, &st) != 0 || (h == &root_h && (st.st_dev != h->dev ||
                                                                     st.st_ino != h->ino)))) {
        close(again);
        again = -1;
    }
    errno = saved;
    if (again < 0)
        return -1;
    again = move_up(again);
    int none = -1;
    if (!atomic_compare_exchange_strong(&h->fd, &none, again)) {
        close(again);   /* another thread took it again first */
        return use(h);
    }
    h->dev = st.st_dev;
    h->ino = st.st_ino;
    return again;
}

/* A forked child holds nothing of its parent's (it takes its own when it
 * adopts); only what is still ours is closed. */
static void fork_child(void)
{
    held *all[] = {&root_h, &dir_h, &result_h};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        int fd = atomic_exchange(&all[i]->fd, -1);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == all[i]->dev &&
            st.st_ino == all[i]->ino)
            close(fd);
    }
}

static void register_fork(void)
{
    pthread_atfork(NULL, NULL, fork_child);
}

static void take(held *h, const char *path)
{
    free(h->path);
    h->path = path ? strdup(path) : NULL;
    h->dir = 1;
    keep(h, path ? open(path, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1);
}

void sl_anchor_take(const char *output)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_fork);
    int saved = errno;
    /* the root only at the first Init: a forked child's is its parent's */
    if (!root_h.path || !sl_root_changed())
        take(&root_h, "/");
    char *dir = output && output[0] == '/' ? sl_dir_of(output) : NULL;
    take(&dir_h, dir);
    free(dir);
    errno = saved;
}

/* Where path (absolute, as at Init) is opened from: *rel relative to the
 * returned descriptor (AT_FDCWD: path itself). */
static int resolve(const char *path, const char **rel)
{
    *rel = path;
    if (!path || path[0] != '/')
        return AT_FDCWD;
    const char *slash = strrchr(path, '/');
    size_t dlen = slash == path ? 1 : (size_t)(slash - path);
    const char *d = dir_h.path;
    if (d && slash[1] && strlen(d) == dlen && memcmp(d, path, dlen) == 0) {
        int fd = use(&dir_h);
        if (fd >= 0) {
            *rel = slash + 1;
            return fd;
        }
    }
    if (sl_root_changed()) {
        int fd = use(&root_h);
        if (fd >= 0) {
            *rel = path[1] ? path + 1 : ".";
            return fd;
        }
    }
    return AT_FDCWD;
}

int sl_at_open(const char *path, int flags, mode_t mode)
{
    const char *rel;
    int at = resolve(path, &rel);
    return openat(at, rel, flags, mode);
}

int sl_at_unlink(const char *path)
{
    const char *rel;
    int at = resolve(path, &rel);
    return unlinkat(at, rel, 0);
}

int sl_at_stat(const char *path, struct stat *st, int flags)
{
    const char *rel;
    int at = resolve(path, &rel);
    return fstatat(at, rel, st, flags);
}

int sl_at_access(const char *path, int mode)
{
    const char *rel;
    int at = resolve(path, &rel);
    return faccessat(at, rel, mode, 0);
}

int sl_at_rename(const char *from, const char *to, unsigned flags)
{
    const char *rf, *rt;
    int af = resolve(from, &rf), at = resolve(to, &rt);
    return renameat2(af, rf, at, rt, flags);
}

int sl_anchor_lost(void)
{
    return sl_root_changed() && use(&root_h) < 0;
}

int sl_anchor_old_root(void)
{
    return sl_root_changed() ? use(&root_h) : -1;
}

void sl_anchor_hold_result(int fd, const char *path, const char *output)
{
    sl_anchor_result_release();
    char *p = strdup(path), *o = strdup(output);
    if (!p || !o) {
        free(p);
        free(o);
        close(fd);
        return;
    }
    result_name = p;
    result_for = o;
    keep(&result_h, fd);    /* never taken again by name: only this descriptor may write it */
}

int sl_anchor_result(const char *output, const char **path)
{
    if (!result_for || !output || strcmp(result_for, output) != 0)
        return -1;
    int fd = use(&result_h);
    if (fd >= 0 && path)
        *path = result_name;
    return fd;
}

const char *sl_anchor_result_name(const char *output)
{
    return result_for && output && strcmp(result_for, output) == 0 ? result_name : NULL;
}

void sl_anchor_result_release(void)
{
    int fd = atomic_exchange(&result_h.fd, -1);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == result_h.dev && st.st_ino == result_h.ino)
        close(fd);
    free(result_for);
    free(result_name);
    result_for = result_name = NULL;
}
