/* Putting a finished file image on disk so that no reader ever sees half a
 * file: temporary file in the target directory, fsync, then link into place
 * without overwriting (or, for sl_h5_into, rename over the original). */
#include "h5_place.h"
#include "name_fit.h"
#include "trusted_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_NUMBERED 10000

/* For a deadline's handler (h5write.h): the temporary file being filled,
 * and the files put in place. */
static const char *volatile pending_temp;
static volatile sig_atomic_t placed;

const char *sl_h5_pending_temp(void)
{
    return pending_temp;
}

unsigned sl_h5_placed(void)
{
    return (unsigned)placed;
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Creates ".<base>.tmpXXXXXX" next to path (mode sl_result_mode()). */
static int make_temp(const char *path, char **tmp_out, sl_diag *diag)
{
    static unsigned counter;
    char *dir = sl_dir_of(path);
    if (!dir)
        return -ENOMEM;
    const char *base = base_of(path);
    /* Within NAME_MAX whatever the name's length (name_fit.h). */
    char *tmp = sl_name_fit_in(dir, ".", base, ".tmp000000");
    if (!tmp) {
        free(dir);
        return -ENOMEM;
    }
    size_t n = strlen(tmp) + 1;
    int err = EEXIST;
    for (int attempt = 0; attempt < 100 && err == EEXIST; attempt++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long r = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16) ^
                          (unsigned long)__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED) * 7919u;
        snprintf(tmp + n - 7, 7, "%06lx", r & 0xFFFFFFul);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0) {
            /* The owner's alone (0600), or the group's to read too where
             * the site shares (SCOPE_LIKWID_SHARE=group: 0640), whatever
             * the umask: a result holds the command line, the working
             * directory and the SLURM_ values (docs/SECURITY.md). */
            (void)fchmod(fd, sl_result_mode());
            close(fd);
            free(dir);
            *tmp_out = tmp;
            return 0;
        }
        err = errno;
    }
    sl_diag_add(diag, path, 0, "cannot create a temporary file in %s: %s", dir, strerror(err));
    free(dir);
    free(tmp);
    return -err;
}

/* Writes buf to the (empty, ours) temporary file, gives it like's mode and
 * owner when like is set, and fsyncs it. */
static int fill_temp(const char *tmp, const void *buf, size_t len, const struct stat *like,
                     const char *path, sl_diag *diag)
{
    int fd = open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        goto fail;
    if (like) {
        if (fchmod(fd, like->st_mode & 07777) < 0)
            goto fail;
        if (fchown(fd, like->st_uid, like->st_gid) < 0) {
            /* not allowed for other owners: keep ours */
        }
    }
    const char *p = buf;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            goto fail;
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) < 0)
        goto fail;
    int fd2 = fd;
    fd = -1;
    if (close(fd2) < 0)
        goto fail;
    return 0;
fail:;
    int err = errno ? errno : EIO;
    if (fd >= 0)
        close(fd);
    sl_diag_add(diag, path, 0, "cannot write temporary file %s: %s", tmp, strerror(err));
    return -err;
}

static int link_noreplace_now(const char *tmp, const char *name)
{
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, name, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -errno;
    /* file system without RENAME_NOREPLACE: link(2) never replaces either */
    if (link(tmp, name) < 0)
        return -errno;
    unlink(tmp);
    return 0;
}

/* Links tmp to name without replacing anything: 0, -EEXIST or -errno. No
 * signal handler runs in between: one sees the file either pending or
 * placed. */
static int link_noreplace(const char *tmp, const char *name)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = link_noreplace_now(tmp, name);
    if (rc == 0) {
        pending_temp = NULL;
        placed = placed + 1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* tmp removed: no longer pending. */
static void drop_temp(const char *tmp)
{
    pending_temp = NULL;
    unlink(tmp);
}

/* Links the finished temporary file tmp to path (or a numbered name),
 * fsyncing it first when sync is set; removes tmp on failure. */
static int link_into_place(char *tmp, const char *path, int sync, char **written, sl_diag *diag)
{
    int rc = 0;
    int fd = sync ? open(tmp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
    if (sync && (fd < 0 || fsync(fd) < 0)) {
        rc = -errno;
        sl_diag_add(diag, path, 0, "cannot write temporary file %s: %s", tmp, strerror(errno));
    }
    if (fd >= 0)
        close(fd);
    char *name = NULL;
    for (unsigned k = 0; !rc && k <= MAX_NUMBERED; k++) {
        name = k ? sl_name_numbered(path, k) : strdup(path);
        if (!name) {
            rc = -ENOMEM;
            break;
        }
        rc = link_noreplace(tmp, name);
        if (rc == 0)
            break;
        free(name);
        name = NULL;
        if (rc != -EEXIST) {
            sl_diag_add(diag, path, 0, "cannot put the file in place: %s", strerror(-rc));
            break;
        }
        rc = k == MAX_NUMBERED ? -EEXIST : 0;
        if (rc)
            sl_diag_add(diag, path, 0, "cannot put the file in place: %u numbered names taken",
                        MAX_NUMBERED);
    }
    if (rc) {
        drop_temp(tmp);
        return rc;
    }
    char *dir = sl_dir_of(name);
    if (dir)
        sync_dir(dir);
    free(dir);
    if (written)
        *written = name;
    else
        free(name);
    return 0;
}

int sl_place_new(const char *path, const void *buf, size_t len, char **written, sl_diag *diag)
{
    if (written)
        *written = NULL;
    char *tmp = NULL;
    int rc = make_temp(path, &tmp, diag);
    if (rc)
        return rc;
    pending_temp = tmp;
    rc = fill_temp(tmp, buf, len, NULL, path, diag);
    if (rc)
        drop_temp(tmp);
    else
        rc = link_into_place(tmp, path, 0, written, diag);
    free(tmp);
    return rc;
}

int sl_place_fd(int fd, const char *path, const void *buf, size_t len, sl_diag *diag)
{
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY)
        rc = -EBADF;
    else if (ftruncate(fd, 0) != 0)
        rc = -errno;
    for (size_t done = 0; !rc && done < len;) {
        ssize_t w = pwrite(fd, (const char *)buf + done, len - done, (off_t)done);
        if (w < 0 && errno == EINTR)
            continue;
        rc = w < 0 ? -errno : w == 0 ? -EIO : 0;
        done += w > 0 ? (size_t)w : 0;
    }
    if (!rc && fsync(fd) != 0)
        rc = -errno;
    if (rc == -EBADF)
        sl_diag_add(diag, path, 0, "the descriptor given for it is not a regular file open for "
                    "writing");
    else if (rc)
        sl_diag_add(diag, path, 0, "cannot write it: %s", strerror(-rc));
    else
        placed = placed + 1;
    return rc;
}

int sl_place_temp(const char *path, char **tmp, sl_diag *diag)
{
    return make_temp(path, tmp, diag);
}

int sl_place_done(char *tmp, const char *path, char **written, sl_diag *diag)
{
    if (written)
        *written = NULL;
    return link_into_place(tmp, path, 1, written, diag);
}

int sl_place_replace(const char *path, const void *buf, size_t len, sl_diag *diag)
{
    /* replace the file a symlink points to, not the link */
    char *real = realpath(path, NULL);
    const char *target = real ? real : path;
    struct stat st;
    int rc = 0;
    char *tmp = NULL;
    if (stat(target, &st) < 0) {
        rc = -errno;
        sl_diag_add(diag, path, 0, "cannot stat: %s", strerror(errno));
        goto out;
    }
    rc = make_temp(target, &tmp, diag);
    if (!rc)
        rc = fill_temp(tmp, buf, len, &st, path, diag);
    if (!rc && rename(tmp, target) < 0) {
        rc = -errno;
        sl_diag_add(diag, path, 0, "cannot replace the file: %s", strerror(errno));
    }
    if (rc && tmp)
        unlink(tmp);
    if (!rc) {
        char *dir = sl_dir_of(target);
        if (dir)
            sync_dir(dir);
        free(dir);
    }
out:
    free(tmp);
    free(real);
    return rc;
}

int sl_slurp(const char *path, void **buf, size_t *len, sl_diag *diag)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        sl_diag_add(diag, path, 0, "cannot open: %s", strerror(err));
        return -err;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        sl_diag_add(diag, path, 0, "not a regular file: expected an HDF5 file");
        return -EINVAL;
    }
    size_t n = (size_t)st.st_size;
    char *p = malloc(n ? n : 1);
    if (!p) {
        close(fd);
        return -ENOMEM;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int err = r < 0 ? errno : EIO;
            free(p);
            close(fd);
            sl_diag_add(diag, path, 0, "cannot read: %s", strerror(err));
            return -err;
        }
        got += (size_t)r;
    }
    close(fd);
    *buf = p;
    *len = n;
    return 0;
}
