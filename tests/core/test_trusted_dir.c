/* Which directories may hold a user's files (core/trust/trusted_dir.c): owned by
 * the user or root, not writable by group or others unless sticky or the
 * user's own private group, links on the way the user's or root's; made
 * with exactly the mode asked for. The cases with another owner need root
 * (chown); they are skipped otherwise. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trusted_dir.h"

#define OTHER 65534     /* nobody */
#define SHARED_GID 100  /* Debian's "users": a group of many */

static char base[64], why[1024];

static void setup(void)
{
    snprintf(base, sizeof base, "/tmp/sl-trusted-XXXXXX");
    cr_assert_not_null(mkdtemp(base));
}

static char *at(const char *rel)
{
    static char buf[4][256];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 256, "%s/%s", base, rel);
    return p;
}

static int trusted(const char *path)
{
    return sl_dir_trusted(path, geteuid(), why, sizeof why);
}

Test(trusted_dir, modes, .init = setup)
{
    cr_assert_eq(trusted(base), 0, "%s", why);
    cr_assert_eq(mkdir(at("open"), 0700), 0);
    chmod(at("open"), 0777);
    cr_assert_eq(trusted(at("open")), -EPERM);
    cr_assert(strstr(why, "writable by others"), "%s", why);
    cr_assert_eq(trusted(at("open/below/deeper")), -EPERM, "an untrusted dir above");
    chmod(at("open"), 01777);
    cr_assert_eq(trusted(at("open")), 0, "sticky: %s", why);
    cr_assert_eq(trusted(at("open/below")), -ENOENT, "trusted as far as it exists");
    cr_assert_eq(trusted("/tmp"), 0, "/tmp (root's, sticky): %s", why);
}

Test(trusted_dir, owners_and_groups, .init = setup)
{
    if (geteuid() != 0)
        cr_skip_test("needs root to give a directory to another user");
    cr_assert_eq(mkdir(at("theirs"), 0700), 0);
    cr_assert_eq(chown(at("theirs"), OTHER, OTHER), 0);
    cr_assert_eq(trusted(at("theirs")), -EPERM);
    cr_assert(strstr(why, "owned by uid 65534"), "%s", why);
    cr_assert_eq(mkdir(at("group"), 0770), 0);
    chmod(at("group"), 0770);
    cr_assert_eq(chown(at("group"), 0, SHARED_GID), 0);
    cr_assert_eq(trusted(at("group")), -EPERM, "a shared group may write");
    cr_assert(strstr(why, "writable by its group"), "%s", why);
    cr_assert_eq(chown(at("group"), 0, 0), 0);
    cr_assert_eq(trusted(at("group")), 0, "root's own group (root, no other member): %s", why);
    cr_assert_eq(mkdir(at("real"), 0700), 0);
    cr_assert_eq(symlink(at("real"), at("link")), 0);
    cr_assert_eq(trusted(at("link")), 0, "root's link to root's dir: %s", why);
    cr_assert_eq(lchown(at("link"), OTHER, OTHER), 0);
    cr_assert_eq(trusted(at("link")), -EPERM, "another user's link");
    cr_assert(strstr(why, "symbolic link"), "%s", why);
    cr_assert_eq(symlink(at("theirs"), at("tolink")), 0);
    cr_assert_eq(trusted(at("tolink")), -EPERM, "root's link into another user's directory");
}

Test(trusted_dir, make_exact_modes, .init = setup)
{
    mode_t old = umask(0777);
    cr_assert_eq(sl_dir_make(at("a/b/c"), 0700, geteuid(), why, sizeof why), 0, "%s", why);
    umask(002);
    cr_assert_eq(sl_dir_make(at("g/h"), 0750, geteuid(), why, sizeof why), 0, "%s", why);
    umask(old);
    struct stat st;
    const char *want700[] = {"a", "a/b", "a/b/c"};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(stat(at(want700[i]), &st), 0);
        cr_assert_eq(st.st_mode & 07777, 0700, "%s: %o", want700[i], st.st_mode & 07777);
    }
    cr_assert_eq(stat(at("g/h"), &st), 0);
    cr_assert_eq(st.st_mode & 07777, 0750);
}

Test(trusted_dir, make_nothing_below_an_untrusted_one, .init = setup)
{
    cr_assert_eq(mkdir(at("open"), 0700), 0);
    chmod(at("open"), 0777);
    cr_assert_eq(sl_dir_make(at("open/mine"), 0700, geteuid(), why, sizeof why), -EPERM);
    struct stat st;
    cr_assert_neq(stat(at("open/mine"), &st), 0, "created below a directory others may change");
}
