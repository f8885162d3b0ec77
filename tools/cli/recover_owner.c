/* Whose journal recover acts on, as whom, and where its result goes
 * (recover.h; docs/SECURITY.md). A journal may have been planted by
 * another user: only a regular file is opened (never a FIFO to wait on, a
 * device, a link), only its owner's journals are acted on (root acts as
 * each journal's owner, in a child with the owner's ids), only in a
 * directory nobody else can change, and every name it writes or removes
 * comes from the journal's own location, never from what it says. */
#include "recover.h"
#include "cmds.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "trusted_dir.h"

#define WHY_BYTES 4096

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

void sl_jrn_place_free(sl_jrn_place *p)
{
    free(p->stem);
    free(p->output);
    free(p->dir);
    *p = (sl_jrn_place){0};
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Names from the journal's location: "D/X.journal" gives the stem "D/X"
 * and the result "D/X" (or "D/X.h5" when X does not end in .h5), D made
 * absolute against the working directory. */
static int place_of(const char *path, sl_jrn_place *p)
{
    *p = (sl_jrn_place){0};
    char *dir = sl_dir_of(path), *cwd = NULL;
    if (dir && dir[0] != '/' && (cwd = getcwd(NULL, 0))) {
        char *abs = NULL;
        if (asprintf(&abs, "%s/%s", cwd, dir) < 0)
            abs = NULL;
        free(dir);
        dir = abs;
    }
    free(cwd);
    p->dir = dir;
    const char *base = base_of(path);
    size_t n = strlen(base), suf = sizeof ".journal" - 1;
    if (!dir || asprintf(&p->stem, "%s/%.*s", dir,
                         (int)(has_suffix(base, ".journal") && n > suf ? n - suf : n), base) < 0) {
        p->stem = NULL;
        return -ENOMEM;
    }
    if (has_suffix(p->stem, ".h5") ? !(p->output = strdup(p->stem))
                                   : asprintf(&p->output, "%s.h5", p->stem) < 0) {
        p->output = NULL;
        return -ENOMEM;
    }
    return 0;
}

/* Whether path names a file in the journal's directory (the same
 * directory, however it is spelled: links, "..") called base. */
static int in_place(const sl_jrn_place *p, const char *path, const char *base)
{
    if (strcmp(base_of(path), base) != 0)
        return 0;
    char *dir = sl_dir_of(path);
    struct stat a, b;
    int same = dir && stat(dir, &a) == 0 && stat(p->dir, &b) == 0 && a.st_dev == b.st_dev &&
               a.st_ino == b.st_ino;
    free(dir);
    return same;
}

int sl_recover_same_output(const sl_jrn_place *p, const char *output)
{
    return in_place(p, output, base_of(p->output));
}

char *sl_recover_rescue_ok(const sl_jrn_place *p, const char *rescue)
{
    /* named after the journal ("<stem>.rescue", or from the shim's spare
     * directory "<stem>.<K>.rescue"), in the journal's directory: the name
     * is then taken in that directory, not as the header spells it */
    const char *base = base_of(rescue), *stem = base_of(p->stem);
    size_t sn = strlen(stem);
    if (strncmp(base, stem, sn) != 0 || !has_suffix(base, ".rescue"))
        return NULL;
    const char *rest = base + sn;
    if (strcmp(rest, ".rescue") != 0) {
        size_t digits = rest[0] == '.' ? strspn(rest + 1, "0123456789") : 0;
        if (digits == 0 || strcmp(rest + 1 + digits, ".rescue") != 0)
            return NULL;
    }
    char *here = NULL;
    if (!in_place(p, rescue, base) || asprintf(&here, "%s/%s", p->dir, base) < 0)
        return NULL;
    return here;
}

/* The journal as its owner finds it: a regular file of ours, the one seen
 * before (dev, ino), in a directory nobody else can change. 0, or 1 with
 * the line said (skipped). */
static int still_ours(const char *path, const struct stat *seen, const sl_jrn_place *p)
{
    char *why = malloc(WHY_BYTES);
    if (!why)
        return 1;
    int rc = sl_dir_trusted(p->dir, geteuid(), why, WHY_BYTES);
    if (rc != 0) {
        sl_error("recover", "%s: skipped: its directory is not safe to write in (%s)", path,
                 rc == -ENOENT ? "it is gone" : why);
        free(why);
        return 1;
    }
    free(why);
    struct stat st;
    int fd = sl_open_regular(path, O_RDONLY, &st);
    if (fd >= 0)
        close(fd);
    if (fd < 0 || st.st_uid != geteuid() || st.st_dev != seen->st_dev ||
        st.st_ino != seen->st_ino) {
        sl_error("recover", "%s: skipped: it changed while recover looked at it", path);
        return 1;
    }
    return 0;
}

static int act(const char *path, const char *why, const struct stat *seen, sl_recover_fn fn)
{
    sl_jrn_place p;
    if (place_of(path, &p) != 0) {
        sl_jrn_place_free(&p);
        sl_error("recover", "%s: out of memory", path);
        return 1;
    }
    int rc = still_ours(path, seen, &p) ? SL_RECOVER_SKIPPED : fn(path, why, &p);
    sl_jrn_place_free(&p);
    return rc;
}

/* Root recovers another user's journal as that user: a child with the
 * owner's uid, gid and groups, so every file it makes or removes is the
 * owner's to make or remove. */
static int as_owner(const char *path, const char *why, const struct stat *seen, sl_recover_fn fn)
{
    struct passwd *pw = getpwuid(seen->st_uid);
    if (!pw) {
        sl_error("recover", "%s: skipped: its owner, uid %u, has no passwd entry to act as",
                 path, (unsigned)seen->st_uid);
        return SL_RECOVER_SKIPPED;
    }
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) {
        sl_error("recover", "%s: skipped: cannot start a process as its owner %s: %s", path,
                 pw->pw_name, strerror(errno));
        return 1;
    }
    if (child == 0) {
        if (initgroups(pw->pw_name, pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 ||
            setuid(pw->pw_uid) != 0 || getuid() != pw->pw_uid || geteuid() != pw->pw_uid ||
            getegid() != pw->pw_gid) {
            sl_error("recover", "%s: skipped: cannot act as its owner %s: %s", path,
                     pw->pw_name, strerror(errno));
            fflush(NULL);
            _exit(SL_RECOVER_SKIPPED);
        }
        int rc = act(path, why, seen, fn);
        fflush(NULL);
        _exit(rc);
    }
    int st;
    while (waitpid(child, &st, 0) < 0)
        if (errno != EINTR)
            return 1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static int not_yours(const char *path, const struct stat *st)
{
    sl_error("recover", "%s: skipped: it belongs to uid %u, not to you (only its owner, or "
             "root acting as its owner, recovers it)", path, (unsigned)st->st_uid);
    return SL_RECOVER_SKIPPED;
}

int sl_recover_guarded(const char *path, const char *why, sl_recover_fn fn)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        sl_error("recover", "%s: %s", path, strerror(errno));
        return 1;
    }
    if (!S_ISREG(st.st_mode)) {
        sl_error("recover", "%s: skipped: it is %s, not a journal (a regular file)", path,
                 sl_mode_kind(st.st_mode));
        return SL_RECOVER_SKIPPED;
    }
    int fd = sl_open_regular(path, O_RDONLY, &st);
    if (fd < 0) {
        if (fd == -EACCES && st.st_uid != geteuid())
            return not_yours(path, &st);
        sl_error("recover", "%s: %s", path, strerror(-fd));
        return 1;
    }
    close(fd);
    if (st.st_uid == geteuid())
        return act(path, why, &st, fn);
    if (geteuid() == 0)
        return as_owner(path, why, &st, fn);
    return not_yours(path, &st);
}
