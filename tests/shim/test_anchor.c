/* What Close needs, held from Init (shim/anchor.c): names of the result's
 * directory go through its descriptor; a descriptor the application closed
 * is taken again by path, and one whose number it reused is never touched. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "face.h"

static char top[] = "/tmp/sl-anchor-XXXXXX";

static char *join(const char *a, const char *b)
{
    char *s;
    cr_assert(asprintf(&s, "%s/%s", a, b) > 0);
    return s;
}

/* The descriptor of this process that is dir (-1: none). */
static int fd_of(const char *dir)
{
    struct stat want, st;
    cr_assert_eq(stat(dir, &want), 0);
    DIR *d = opendir("/proc/self/fd");
    cr_assert_not_null(d);
    int found = -1;
    for (struct dirent *e; (e = readdir(d)) && found < 0;) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd != dirfd(d) && fstat(fd, &st) == 0 &&
            st.st_dev == want.st_dev && st.st_ino == want.st_ino)
            found = fd;
    }
    closedir(d);
    return found;
}

static int exists(const char *dir, const char *name)
{
    char *p = join(dir, name);
    int ok = access(p, F_OK) == 0;
    free(p);
    return ok;
}

static void make(const char *path)
{
    int fd = sl_at_open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
    close(fd);
}

Test(anchor, the_directory_of_init_whatever_happens_to_its_name)
{
    cr_assert_not_null(mkdtemp(top));
    char *dir = join(top, "out"), *moved = join(top, "moved");
    cr_assert_eq(mkdir(dir, 0700), 0);
    char *out = join(dir, "r.h5"), *a = join(dir, "a"), *b = join(dir, "b");
    sl_anchor_take(out);
    int held = fd_of(dir);
    cr_assert_geq(held, 64, "the result's directory is held above the low numbers (%d)", held);
    cr_assert(fcntl(held, F_GETFD) & FD_CLOEXEC);

    /* renamed after Init: the name of Init still means the directory of Init */
    cr_assert_eq(rename(dir, moved), 0);
    make(a);
    cr_expect(exists(moved, "a"), "created through the held descriptor");

    /* the application closes it and its number goes to another directory of
     * its own: never touched, the name is taken again by path */
    cr_assert_eq(close(held), 0);
    int other = open(top, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(other, 0);
    cr_assert_eq(dup2(other, held), held);
    close(other);
    cr_assert_eq(mkdir(dir, 0700), 0);
    make(b);
    cr_expect(exists(dir, "b"), "taken again by its path");
    cr_expect(!exists(top, "b") && !exists(moved, "b"), "not where the reused number points");
    cr_expect_eq(fcntl(held, F_GETFD), 0, "the application's descriptor stays open as it was");
    cr_expect_geq(fd_of(dir), 64, "held again");
    char *cmd;
    cr_assert(asprintf(&cmd, "rm -rf %s", top) > 0);
    cr_expect_eq(system(cmd), 0);
    free(cmd);
    free(dir), free(moved), free(out), free(a), free(b);
}

Test(anchor, only_a_percent_u_asks_for_the_name)
{
    cr_expect(sl_output_needs_user("/s/%u/%d/"));
    cr_expect(sl_output_needs_user("%r-%u.h5"));
    cr_expect(!sl_output_needs_user("/s/%%u/x.h5"), "%%u is a literal %u");
    cr_expect(sl_output_needs_user("/s/%%%u"));
    cr_expect(!sl_output_needs_user("/s/%d-%j-%p.h5"));
    cr_expect(!sl_output_needs_user(NULL));
    cr_expect(!sl_output_needs_user("%"));
}
