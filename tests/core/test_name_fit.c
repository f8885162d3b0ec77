/* Derived names kept within NAME_MAX and PATH_MAX (core/base/name_fit.c). */
#include <criterion/criterion.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "name_fit.h"

static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static const char *last(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

Test(name_fit, short_names_unchanged)
{
    char *a = sl_name_fit("/d/out.h5", "", ".rescue");
    cr_assert_str_eq(a, "/d/out.h5.rescue");
    free(a);
    a = sl_name_fit("out.h5", ".", ".tmpXXXXXX");
    cr_assert_str_eq(a, ".out.h5.tmpXXXXXX");
    free(a);
    a = sl_name_fit("/x", "", ".y");
    cr_assert_str_eq(a, "/x.y");
    free(a);
    a = sl_name_fit_in("/t", "", "b", ".1.rescue");
    cr_assert_str_eq(a, "/t/b.1.rescue");
    free(a);
}

Test(name_fit, every_length_up_to_255_fits)
{
    for (size_t n = 200; n <= NAME_MAX; n++) {
        char *base = repeat('n', n), path[PATH_MAX];
        snprintf(path, sizeof path, "/some/dir/%s", base);
        char *r = sl_name_fit(path, ".", ".merge.XXXXXX");
        cr_assert_not_null(r);
        cr_assert_leq(strlen(last(r)), NAME_MAX, "length %zu gave %zu", n, strlen(last(r)));
        cr_assert(strncmp(r, "/some/dir/.", 11) == 0, "%s", r);
        size_t l = strlen(r);
        cr_assert_str_eq(r + l - 13, ".merge.XXXXXX", "the suffix is kept intact");
        if (n + 14 > NAME_MAX)
            cr_assert_not_null(strchr(last(r), '~'), "shortened with a hash: %s", r);
        free(r);
        free(base);
    }
}

Test(name_fit, distinct_long_names_stay_distinct)
{
    char *a = repeat('a', 255), *b = repeat('a', 255);
    b[250] = 'b';
    char *ra = sl_name_fit(a, "", ".rescue"), *rb = sl_name_fit(b, "", ".rescue");
    cr_assert_str_neq(ra, rb);
    free(a);
    free(b);
    free(ra);
    free(rb);
}

Test(name_fit, utf8_not_cut_inside_a_character)
{
    /* 127 two-byte characters (254 bytes) + ".rescue": must be cut, and at
     * an even offset. */
    char base[300] = "";
    for (int i = 0; i < 127; i++)
        strcat(base, "\xc3\xa9");
    char *r = sl_name_fit(base, "", ".rescue");
    const char *tilde = strchr(r, '~');
    cr_assert_not_null(tilde);
    cr_assert_eq((tilde - r) % 2, 0, "cut inside a UTF-8 sequence: %s", r);
    free(r);
}

Test(name_fit, too_long_directory_is_refused)
{
    char *dir = repeat('d', PATH_MAX);
    errno = 0;
    cr_assert_null(sl_name_fit_in(dir, "", "b", ".x"));
    cr_assert_eq(errno, ENAMETOOLONG);
    free(dir);
}
