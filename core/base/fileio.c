/* Whole-file reads with libc only: the shim uses this too. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int sl_read_file(const char *path, size_t max_bytes, char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    if (S_ISDIR(st.st_mode) || !S_ISREG(st.st_mode)) {
        close(fd);
        return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
    }
    if (max_bytes && (unsigned long long)st.st_size > max_bytes) {
        close(fd);
        return -EFBIG;
    }
    if ((unsigned long long)st.st_size > SIZE_MAX - 2) {
        close(fd);
        return -EFBIG;
    }
    /* room for the file, its NUL, and one byte so that the read that sees
     * end of file does not look like growth */
    size_t cap = (size_t)st.st_size + 2, n = 0;
    char *b = malloc(cap);
    if (!b) {
        close(fd);
        return -ENOMEM;
    }
    for (;;) {
        if (n + 1 >= cap) {
            /* the file grew while we read it */
            if (max_bytes && n > max_bytes) {
                free(b);
                close(fd);
                return -EFBIG;
            }
            if (cap > SIZE_MAX / 2) {
                free(b);
                close(fd);
                return -EFBIG;
            }
            char *g = realloc(b, cap * 2);
            if (!g) {
                free(b);
                close(fd);
                return -ENOMEM;
            }
            b = g;
            cap *= 2;
        }
        ssize_t r = read(fd, b + n, cap - 1 - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = -errno;
            free(b);
            close(fd);
            return e;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (max_bytes && n > max_bytes) {
            free(b);
            close(fd);
            return -EFBIG;
        }
    }
    close(fd);
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int sl_open_regular(const char *path, int flags, struct stat *st)
{
    int fd = open(path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0)
        return -errno;
    struct stat own;
    if (!st)
        st = &own;
    int e = fstat(fd, st) != 0 ? errno : !S_ISREG(st->st_mode) ? EINVAL : 0;
    if (e) {
        close(fd);
        return -e;
    }
    return fd;
}

static const struct {
    mode_t type;
    const char *kind;
} mode_kinds[] = {
    {S_IFCHR, "a character device"}, {S_IFBLK, "a block device"}, {S_IFIFO, "a FIFO"},
    {S_IFSOCK, "a socket"}, {S_IFLNK, "a symbolic link"}, {S_IFDIR, "a directory"},
    {S_IFREG, "a regular file"},
};

const char *sl_mode_kind(mode_t m)
{
    for (size_t i = 0; i < sizeof mode_kinds / sizeof mode_kinds[0]; i++)
        if ((m & S_IFMT) == mode_kinds[i].type)
            return mode_kinds[i].kind;
    return "not a regular file";
}
