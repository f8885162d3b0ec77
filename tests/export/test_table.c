/* The plain-text table and the JSON string writer of tools/views, byte for
 * byte against texts written out here, and their failure paths: realloc is
 * wrapped (-Wl,--wrap=realloc) to fail from its Nth call on, and
 * open_memstream (-Wl,--wrap=open_memstream), which export uses for its
 * JSON keys, to fail on demand. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_json.h"
#include "export_rows.h"
#include "table.h"

static long realloc_calls_left = -1; /* -1: never fail */
void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n)
{
    if (realloc_calls_left == 0)
        return NULL;
    if (realloc_calls_left > 0)
        realloc_calls_left--;
    return __real_realloc(p, n);
}

static int memstream_fails;
FILE *__real_open_memstream(char **buf, size_t *len);
FILE *__wrap_open_memstream(char **buf, size_t *len)
{
    if (memstream_fails)
        return NULL;
    return __real_open_memstream(buf, len);
}

/* What the memstream f received (the caller frees *buf). Only the code
 * linked here has its realloc wrapped: open_memstream's own is libc's. */
static char *printed(FILE *f, char **buf)
{
    fclose(f);
    return *buf;
}

static void fill_table(sl_table *t)
{
    sl_table_init(t, 3);
    for (int r = 0; r < 3; r++)
        cr_assert_eq(sl_table_add_row(t), r);
    cr_assert_eq(sl_table_set(t, 0, 0, "Region"), 0);
    cr_assert_eq(sl_table_set(t, 0, 1, "a"), 0);
    cr_assert_eq(sl_table_set(t, 0, 2, "\xc3\xa4\xc3\xb6"), 0); /* 2 characters, 4 bytes */
    cr_assert_eq(sl_table_set(t, 1, 0, "calls"), 0);
    cr_assert_eq(sl_table_setf(t, 1, 1, "%d", 12345), 0);
    cr_assert_eq(sl_table_set(t, 1, 2, "first"), 0);
    cr_assert_eq(sl_table_set(t, 1, 2, "7"), 0); /* set twice: the second text */
    cr_assert_eq(sl_table_set(t, 2, 0, "x"), 0);
    cr_assert_eq(sl_table_set(t, 2, 2, NULL), 0); /* empty: "-" */
}

static const char expected_table[] = "+--------+-------+----+\n"
                                     "| Region |     a | \xc3\xa4\xc3\xb6 |\n"
                                     "+--------+-------+----+\n"
                                     "| calls  | 12345 |  7 |\n"
                                     "| x      |     - |  - |\n"
                                     "+--------+-------+----+\n";

Test(table, prints_widths_in_characters_and_empty_cells)
{
    sl_table t;
    fill_table(&t);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(sl_table_print(f, &t, 1), 0);
    cr_expect_str_eq(printed(f, &buf), expected_table);
    free(buf);
    sl_table_free(&t);
}

Test(table, a_failed_line_ends_the_table_with_enomem_and_whole_lines_before_it)
{
    int failures = 0;
    for (long n = 0; n < 64; n++) {
        sl_table t;
        fill_table(&t);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        realloc_calls_left = n;
        int rc = sl_table_print(f, &t, 1);
        realloc_calls_left = -1;
        char *out = printed(f, &buf);
        if (rc) {
            failures++;
            cr_expect_eq(rc, -ENOMEM, "n=%ld: rc %d", n, rc);
            size_t k = strlen(out);
            cr_expect(!strncmp(out, expected_table, k), "n=%ld: not a prefix: %s", n, out);
            cr_expect(k == 0 || out[k - 1] == '\n', "n=%ld: a cut line: %s", n, out);
            cr_expect(k < sizeof expected_table - 1, "n=%ld: whole table and an error", n);
        } else {
            cr_expect_str_eq(out, expected_table, "n=%ld", n);
        }
        free(buf);
        sl_table_free(&t);
    }
    cr_expect_gt(failures, 0, "realloc never failed inside sl_table_print");
}

Test(json, strings_escape_only_what_json_requires)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sl_json_string(f, "plain");
    sl_json_string(f, "");
    sl_json_string(f, "q\"b\\n\nr\rt\tc\x01\x7f" "end\xc3\xa4");
    cr_expect_str_eq(printed(f, &buf),
                     "\"plain\"\"\"\"q\\\"b\\\\n\\nr\\rt\\tc\\u0001\\u007fend\xc3\xa4\"");
    free(buf);
}

Test(fmt, int_as_lld)
{
    char b[SL_NUM_BUF], want[SL_NUM_BUF];
    const long long v[] = {0, 7, -7, 10, 1234567890123LL, -9223372036854775807LL - 1,
                           9223372036854775807LL};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        snprintf(want, sizeof want, "%lld", v[i]);
        cr_expect_str_eq(sl_fmt_int(v[i], b), want);
    }
}

/* What a stream that is a temporary file received (caller frees). */
static char *file_text(FILE *f)
{
    long n = ftell(f);
    char *s = calloc(1, (size_t)n + 1);
    cr_assert(s);
    rewind(f);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return s;
}

Test(export, json_keys_not_made_is_enomem_before_any_output)
{
    sl_runset none = {0};
    FILE *f = tmpfile();
    cr_assert(f);
    cr_assert_eq(sl_export_write(f, &none, SL_EXPORT_JSON), 0);
    char *out = file_text(f);
    cr_expect_str_eq(out, "[]\n");
    free(out);

    f = tmpfile();
    cr_assert(f);
    memstream_fails = 1;
    int rc = sl_export_write(f, &none, SL_EXPORT_JSON);
    memstream_fails = 0;
    cr_expect_eq(rc, -ENOMEM);
    out = file_text(f);
    cr_expect_str_eq(out, "", "output before the failure: %s", out);
    free(out);
}
