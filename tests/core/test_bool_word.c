/* The one parser of boolean SCOPE_LIKWID_* variables (core/base/bool_word.c):
 * the documented words, and one warning with the default for anything else. */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "bool_word.h"

Test(bool_word, documented_words)
{
    const char *yes[] = {"1", "yes", "true", "on", "YES", "True", "ON"};
    const char *no[] = {"0", "no", "false", "off", "NO", "False", "Off"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        cr_assert_eq(sl_bool_word(yes[i]), 1, "'%s'", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        cr_assert_eq(sl_bool_word(no[i]), 0, "'%s'", no[i]);
}

Test(bool_word, anything_else)
{
    const char *bad[] = {"", "2", "-1", "00", "01", "y", "n", "yess", "nope", "tru", "of",
                         "onn", " on", "on ", "1 ", "true\n", "enable", "%s%n", "\xc3\xa9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(sl_bool_word(bad[i]), -EINVAL, "'%s' accepted", bad[i]);
    cr_assert_eq(sl_bool_word(NULL), -EINVAL);
}

Test(bool_word, unset_is_the_default)
{
    char warn[SL_BOOL_WARN_BUF] = "x";
    cr_assert_eq(sl_bool_value("SCOPE_LIKWID_X", NULL, 1, warn), 1);
    cr_assert_str_empty(warn);
    cr_assert_eq(sl_bool_value("SCOPE_LIKWID_X", NULL, 0, warn), 0);
    cr_assert_str_empty(warn);
}

Test(bool_word, words_override_the_default)
{
    char warn[SL_BOOL_WARN_BUF];
    cr_assert_eq(sl_bool_value("SCOPE_LIKWID_X", "off", 1, warn), 0);
    cr_assert_str_empty(warn);
    cr_assert_eq(sl_bool_value("SCOPE_LIKWID_X", "Yes", 0, warn), 1);
    cr_assert_str_empty(warn);
}

Test(bool_word, bad_value_warns_and_keeps_the_default)
{
    char warn[SL_BOOL_WARN_BUF];
    cr_assert_eq(sl_bool_value("SCOPE_LIKWID_TSC", "bogus", 1, warn), 1);
    cr_assert_str_eq(warn, "SCOPE_LIKWID_TSC='bogus' not understood: expected 1/0, yes/no, "
                           "true/false or on/off; using 1");
    cr_assert_eq(sl_bool_value("SCOPE_LIKWID_QUIET", "", 0, warn), 0);
    cr_assert_str_eq(warn, "SCOPE_LIKWID_QUIET='' not understood: expected 1/0, yes/no, "
                           "true/false or on/off; using 0");
    /* never a format */
    cr_assert_eq(sl_bool_value("SCOPE_LIKWID_ARGS", "%s%n", 1, warn), 1);
    cr_assert(strstr(warn, "='%s%n' not understood"), "%s", warn);
}

Test(bool_word, long_value_clipped_to_one_line)
{
    char value[4096];
    memset(value, 'v', sizeof value - 1);
    value[sizeof value - 1] = '\0';
    value[10] = '\n';
    char warn[SL_BOOL_WARN_BUF];
    cr_assert_eq(sl_bool_value("SCOPE_LIKWID_JOURNAL", value, 1, warn), 1);
    cr_assert_lt(strlen(warn), 200, "%zu bytes", strlen(warn));
    cr_assert_null(strchr(warn, '\n'));
    cr_assert(strstr(warn, "...(4095 bytes)' not understood"), "%s", warn);
    cr_assert(strstr(warn, "; using 1"), "%s", warn);
}
