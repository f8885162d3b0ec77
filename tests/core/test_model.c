/* The result model, diagnostics and whole-file reads. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "fileio.h"
#include "likwid_result.h"
#include "mem.h"
#include "why.h"

Test(model, source_names_round_trip)
{
    for (int s = SL_SOURCE_NONE; s <= SL_SOURCE_MARKER_API; s++) {
        const char *n = sl_source_name((sl_source)s);
        sl_source back = (sl_source)99;
        cr_assert_eq(sl_source_parse(n, strlen(n), &back), 0, "%s", n);
        cr_assert_eq((int)back, s);
    }
    cr_assert_str_eq(sl_source_name(SL_SOURCE_MARKER_FILE), "marker_file");
    cr_assert_str_eq(sl_source_name((sl_source)42), "none");
    sl_source out;
    cr_assert_eq(sl_source_parse("marker_fil", 10, &out), -EINVAL);
    cr_assert_eq(sl_source_parse("marker_filex", 12, &out), -EINVAL);
    cr_assert_eq(sl_source_parse("full_api", 8, &out), 0);
    cr_assert_eq(out, SL_SOURCE_FULL_API);
}

Test(model, add_regions)
{
    sl_likwid lw;
    sl_likwid_init(&lw);
    for (int i = 0; i < 40; i++) { /* past the first growth */
        char tag[16];
        int n = snprintf(tag, sizeof tag, "r%d", i);
        sl_region *r = sl_likwid_add(&lw, tag, (size_t)n, i % 3, "G", SL_SOURCE_FULL_API,
                                     (size_t)i % 4, 3, 2, i % 2);
        cr_assert_not_null(r);
        cr_assert_str_eq(r->tag, tag);
        cr_assert_str_eq(r->group_name, "G");
        cr_assert_eq(r->nthreads, (size_t)i % 4);
        for (size_t k = 0; k < 3 * r->nthreads; k++)
            cr_assert_eq(r->events[k], 0.0);
        for (size_t k = 0; k < 2; k++)
            cr_assert_str_eq(r->metric_names[k], "");
        if (i % 2) {
            cr_assert_str_eq(r->event_names[2], "");
            cr_assert_str_eq(r->counter_names[0], "");
        } else {
            cr_assert_null(r->event_names);
        }
    }
    cr_assert_eq(lw.nregions, 40);
    cr_assert_str_eq(lw.regions[39].tag, "r39");
    /* a tag with bytes past a NUL is cut by nothing: tag_len is the length */
    sl_region *r = sl_likwid_add(&lw, "a\0b", 3, 0, NULL, SL_SOURCE_MARKER_FILE, 0, 0, 0, 0);
    cr_assert_not_null(r);
    cr_assert_eq(r->tag_len, 3);
    cr_assert_eq(memcmp(r->tag, "a\0b", 4), 0);
    cr_assert_str_eq(r->group_name, "");
    /* sizes whose product overflows are refused */
    cr_assert_null(sl_likwid_add(&lw, "x", 1, 0, "", SL_SOURCE_FULL_API, SIZE_MAX / 2, 4, 0, 0));
    cr_assert_eq(lw.nregions, 41);
    sl_likwid_free(&lw);
    cr_assert_eq(lw.nregions, 0);
    cr_assert_null(lw.regions);
    sl_likwid_free(&lw); /* twice is harmless */
}

Test(model, set_string)
{
    char *s = NULL;
    cr_assert_eq(sl_set_string(&s, "abc"), 0);
    cr_assert_str_eq(s, "abc");
    cr_assert_eq(sl_set_string(&s, NULL), 0);
    cr_assert_str_eq(s, "");
    free(s);
}

Test(mem, zeroed_copies_and_string_arrays)
{
    int64_t *none = sl_zalloc(0, sizeof *none); /* an empty array is not a failure */
    cr_assert_not_null(none);
    free(none);
    cr_assert_null(sl_zalloc(SIZE_MAX / 2, 4));
    double *v = sl_zalloc(3, sizeof *v);
    cr_assert(v && v[0] == 0.0 && v[2] == 0.0);
    free(v);
    char *b = sl_bytes_dup("x\0y", 3);
    cr_assert_eq(memcmp(b, "x\0y", 4), 0);
    free(b);
    char **s = sl_zalloc(2, sizeof *s);
    s[0] = sl_bytes_dup("a", 1);
    sl_strings_free(s, 2); /* NULL items are fine */
    sl_strings_free(NULL, 5);
}

Test(why, fixed_buffer_cuts_at_its_end)
{
    char buf[8];
    sl_why w;
    sl_why_in(&w, buf, sizeof buf);
    cr_assert_str_eq(sl_why_text(&w), "");
    sl_why_add(&w, "ab%d", 1);
    sl_why_addn(&w, 2, "%s", "xyz"); /* the bound cuts the piece */
    cr_assert_str_eq(buf, "ab1xy");
    sl_why_add(&w, "%s", "123456"); /* the buffer cuts the text */
    cr_assert_str_eq(buf, "ab1xy12");
    cr_assert_eq(w.len, 7);
    sl_why_add(&w, "more");
    cr_assert_str_eq(sl_why_text(&w), "ab1xy12");
    sl_why_free(&w); /* not the caller's buffer */
    cr_assert_str_eq(buf, "ab1xy12");
}

Test(why, heap_grows)
{
    sl_why w;
    sl_why_heap(&w);
    cr_assert_str_eq(sl_why_text(&w), "");
    for (int i = 0; i < 100; i++)
        sl_why_add(&w, "%d;", i % 10);
    sl_why_addn(&w, 3, "%s", "abcdef");
    cr_assert_eq(w.len, 203);
    cr_assert_eq(strncmp(sl_why_text(&w), "0;1;2;", 6), 0);
    cr_assert_str_eq(sl_why_text(&w) + 200, "abc");
    sl_why_free(&w);
    cr_assert_null(w.s);
}

Test(diag, format_and_cap)
{
    sl_diag d;
    sl_diag_init(&d);
    sl_diag_add(&d, "f.txt", 12, "bad %s: expected %d", "x\ny\r", 3);
    sl_diag_add(&d, "f.txt", 0, "cannot read: expected a file");
    sl_diag_add(&d, NULL, 1, "m");
    cr_assert_str_eq(d.lines[0], "f.txt:12: bad x y : expected 3");
    cr_assert_str_eq(d.lines[1], "f.txt: cannot read: expected a file");
    cr_assert_str_eq(d.lines[2], "(input):1: m");
    for (int i = 0; i < SL_DIAG_MAX + 10; i++)
        sl_diag_add(&d, "f", (size_t)i + 1, "n");
    cr_assert_eq(d.kept, SL_DIAG_MAX);
    cr_assert_eq(d.count, SL_DIAG_MAX + 13);
    sl_diag_free(&d);
    cr_assert_eq(d.kept, 0);
    cr_assert_null(d.lines);
}

static char tmpdir[] = "/tmp/sl_test_fileio_XXXXXX";

static void mkd(void)
{
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void rmd(void)
{
    char p[128];
    snprintf(p, sizeof p, "%s/f", tmpdir);
    unlink(p);
    snprintf(p, sizeof p, "%s/e", tmpdir);
    unlink(p);
    rmdir(tmpdir);
}

TestSuite(fileio, .init = mkd, .fini = rmd);

Test(fileio, read_whole_file)
{
    char p[128];
    snprintf(p, sizeof p, "%s/f", tmpdir);
    FILE *f = fopen(p, "wb");
    cr_assert_not_null(f);
    for (int i = 0; i < 100000; i++)
        fputc('a' + i % 26, f);
    fclose(f);
    char *buf;
    size_t len;
    cr_assert_eq(sl_read_file(p, 0, &buf, &len), 0);
    cr_assert_eq(len, 100000);
    cr_assert_eq(buf[len], '\0');
    cr_assert_eq(buf[99999], 'a' + 99999 % 26);
    free(buf);
    cr_assert_eq(sl_read_file(p, 1000, &buf, &len), -EFBIG);
    cr_assert_null(buf);
    cr_assert_eq(sl_read_file(p, 100000, &buf, &len), 0);
    free(buf);

    snprintf(p, sizeof p, "%s/e", tmpdir);
    f = fopen(p, "wb");
    fclose(f);
    cr_assert_eq(sl_read_file(p, 0, &buf, &len), 0);
    cr_assert_eq(len, 0);
    cr_assert_eq(buf[0], '\0');
    free(buf);
}

Test(fileio, errors)
{
    char *buf = (char *)1;
    size_t len = 7;
    cr_assert_eq(sl_read_file("/nonexistent/x", 0, &buf, &len), -ENOENT);
    cr_assert_null(buf);
    cr_assert_eq(len, 0);
    cr_assert_eq(sl_read_file(tmpdir, 0, &buf, &len), -EISDIR);
    cr_assert_eq(sl_read_file("/dev/null", 0, &buf, &len), -EINVAL);
}
