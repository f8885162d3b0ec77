/* Which directories may hold a user's files, and making them (see
 * trusted_dir.h). */
#include "trusted_dir.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sl_share_setting(void)
{
    const char *v = getenv(SL_SHARE_ENV);
    if (!v || !*v || strcmp(v, "none") == 0)
        return 0;
    return strcmp(v, "group") == 0 ? 1 : -1;
}

mode_t sl_result_mode(void)
{
    return sl_share_setting() == 1 ? SL_MODE_SHARED : SL_MODE_PRIVATE;
}

mode_t sl_dir_mode(void)
{
    return sl_share_setting() == 1 ? SL_MODE_DIR_SHARED : SL_MODE_DIR;
}

char *sl_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* The passwd and group entries, their strings in a heap buffer that grows
 * until they fit. */
static void *lookup_buf(size_t *cap)
{
    long n = sysconf(_SC_GETPW_R_SIZE_MAX), m = sysconf(_SC_GETGR_R_SIZE_MAX);
    *cap = (size_t)(n > 1024 ? n : 1024) + (size_t)(m > 1024 ? m : 1024);
    return malloc(*cap);
}

/* The user's own group: the user's primary group, named after the user,
 * listing no other member. Where the databases cannot say, it is not. */
static int private_group(gid_t gid, uid_t uid)
{
    size_t cap;
    char *buf = lookup_buf(&cap);
    struct passwd pw, *pwp = NULL;
    struct group gr, *grp = NULL;
    int rc;
    while (buf && (rc = getpwuid_r(uid, &pw, buf, cap, &pwp)) == ERANGE && cap < (1u << 20)) {
        char *b = realloc(buf, cap *= 2);
        if (!b)
            break;
        buf = b;
    }
    int own = 0;
    if (buf && pwp && pw.pw_gid == gid) {
        /* the group's strings after the user's name: copy it first */
        char *name = strdup(pw.pw_name);
        while (name && (rc = getgrgid_r(gid, &gr, buf, cap, &grp)) == ERANGE && cap < (1u << 20)) {
            char *b = realloc(buf, cap *= 2);
            if (!b)
                break;
            buf = b;
        }
        own = name && grp && strcmp(gr.gr_name, name) == 0;
        for (char **m = grp ? gr.gr_mem : NULL; own && m && *m; m++)
            own = strcmp(*m, name) == 0;
        free(name);
    }
    free(buf);
    return own;
}

/* One component: 0, -EPERM with why, -ENOTDIR. */
static int judge(const char *path, const struct stat *st, uid_t uid, char *why, size_t cap)
{
    if (S_ISLNK(st->st_mode)) {
        if (st->st_uid == uid || st->st_uid == 0)
            return 0;
        snprintf(why, cap, "%s is a symbolic link owned by uid %u, not by you or root", path,
                 (unsigned)st->st_uid);
        return -EPERM;
    }
    if (!S_ISDIR(st->st_mode)) {
        snprintf(why, cap, "%s is not a directory", path);
        return -ENOTDIR;
    }
    if (st->st_uid != uid && st->st_uid != 0) {
        snprintf(why, cap, "%s is owned by uid %u, not by you or root", path,
                 (unsigned)st->st_uid);
        return -EPERM;
    }
    if (st->st_mode & S_ISVTX)
        return 0;       /* a shared sticky directory: nobody removes or renames our files */
    if (st->st_mode & S_IWOTH) {
        snprintf(why, cap, "%s is writable by others (mode %04o)", path,
                 (unsigned)(st->st_mode & 07777));
        return -EPERM;
    }
    if ((st->st_mode & S_IWGRP) && !(st->st_uid == uid && private_group(st->st_gid, uid))) {
        snprintf(why, cap, "%s is writable by its group (mode %04o)", path,
                 (unsigned)(st->st_mode & 07777));
        return -EPERM;
    }
    return 0;
}

/* Each prefix of path (absolute) from "/" down, judged; stops at the first
 * that is not there (-ENOENT; *missing: its end in path). */
static int walk(char *path, uid_t uid, char *why, size_t cap, char **missing)
{
    size_t n = strlen(path);
    for (size_t i = 1; i <= n; i++) {
        if (i < n && path[i] != '/')
            continue;
        if (i < n && path[i - 1] == '/')
            continue;   /* "//" */
        char c = path[i];
        path[i] = '\0';
        struct stat st;
        int rc = lstat(path, &st);
        if (rc != 0 && errno == ENOENT) {
            path[i] = c;
            if (missing)
                *missing = path + i;
            return -ENOENT;
        }
        if (rc != 0) {
            rc = -errno;
            snprintf(why, cap, "%s: %s", path, strerror(errno));
        } else {
            rc = judge(path, &st, uid, why, cap);
        }
        path[i] = c;
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* path made absolute against the working directory, on the heap. */
static char *absolute(const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    char *cwd = getcwd(NULL, 0);
    char *out = NULL;
    if (cwd && asprintf(&out, "%s/%s", cwd, path) < 0)
        out = NULL;
    free(cwd);
    return out;
}

int sl_dir_trusted(const char *dir, uid_t uid, char *why, size_t cap)
{
    if (cap)
        why[0] = '\0';
    char *abs = absolute(dir);
    if (!abs) {
        snprintf(why, cap, "%s: %s", dir, strerror(ENOMEM));
        return -ENOMEM;
    }
    /* as written: the root judged first, then every directory and link */
    struct stat root;
    int rc = lstat("/", &root) == 0 ? judge("/", &root, uid, why, cap) : -errno;
    char *missing = NULL;
    if (rc == 0)
        rc = walk(abs, uid, why, cap, &missing);
    /* and as resolved (the directories a link leads to), as far as it exists */
    if (rc == 0 || rc == -ENOENT) {
        int partial = rc;
        if (missing)
            *missing = '\0';
        char *real = realpath(abs, NULL);
        if (real) {
            rc = walk(real, uid, why, cap, NULL);
            free(real);
            if (rc == 0)
                rc = partial;
        } else if (errno != ENOENT) {
            rc = -errno;
            snprintf(why, cap, "%s: %s", abs, strerror(errno));
        }
    }
    free(abs);
    return rc;
}

int sl_dir_make(const char *dir, mode_t mode, uid_t uid, char *why, size_t cap)
{
    int rc = sl_dir_trusted(dir, uid, why, cap);
    if (rc != -ENOENT)
        return rc;
    char *abs = absolute(dir);
    if (!abs) {
        snprintf(why, cap, "%s: %s", dir, strerror(ENOMEM));
        return -ENOMEM;
    }
    size_t n = strlen(abs);
    rc = 0;
    for (size_t i = 1; i <= n && rc == 0; i++) {
        if ((i < n && abs[i] != '/') || abs[i - 1] == '/')
            continue;
        char c = abs[i];
        abs[i] = '\0';
        struct stat st;
        if (lstat(abs, &st) == 0) {
            rc = judge(abs, &st, uid, why, cap);
            abs[i] = c;
            continue;
        }
        if (mkdir(abs, mode) == 0) {
            /* exactly mode, whatever the umask; checked below like the rest */
            if (chmod(abs, mode) != 0) {
                rc = -errno;
                snprintf(why, cap, "%s: %s", abs, strerror(errno));
            }
        } else if (errno != EEXIST) {
            rc = -errno;
            snprintf(why, cap, "cannot create the directory %s: %s", abs, strerror(errno));
        }
        if (rc == 0) {
            /* ours, or one made meanwhile (another rank of the same user:
             * fine; anyone else's: not) */
            rc = lstat(abs, &st) == 0 ? judge(abs, &st, uid, why, cap) : -errno;
        }
        abs[i] = c;
    }
    free(abs);
    return rc == 0 ? sl_dir_trusted(dir, uid, why, cap) : rc;
}
