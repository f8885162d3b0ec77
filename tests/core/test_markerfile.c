/* The marker-file reader: the spec's samples value by value, every defect in
 * strict and salvage mode, the tolerated variants, and limits. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "likwid_result.h"
#include "markerfile.h"

static sl_likwid lw;
static sl_markerfile_info info;
static sl_diag diag;

static void setup(void)
{
    sl_likwid_init(&lw);
    sl_diag_init(&diag);
    memset(&info, 0, sizeof info);
}

static void teardown(void)
{
    sl_likwid_free(&lw);
    sl_diag_free(&diag);
}

TestSuite(markerfile, .init = setup, .fini = teardown);

/* Every diagnostic of a parse is one line "NAME:LINE: ...: expected ...",
 * LINE a positive decimal number. */
static void check_diag_format(const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < diag.kept; i++) {
        const char *d = diag.lines[i];
        cr_assert_null(strchr(d, '\n'), "newline in diag: %s", d);
        cr_assert_eq(strncmp(d, name, nl), 0, "diag without the file name: %s", d);
        cr_assert_eq(d[nl], ':', "diag: %s", d);
        size_t k = nl + 1;
        cr_assert(d[k] >= '1' && d[k] <= '9', "no line number: %s", d);
        while (d[k] >= '0' && d[k] <= '9')
            k++;
        cr_assert(d[k] == ':' && d[k + 1] == ' ', "diag: %s", d);
        cr_assert_not_null(strstr(d, ": expected "), "diag without ': expected ': %s", d);
    }
}

static void print_diag(void)
{
    for (size_t i = 0; i < diag.kept; i++)
        cr_log_info("diag: %s", diag.lines[i]);
}

/* Parses exactly len bytes from a buffer of that size: no NUL after it, so a
 * sanitizer build catches any read past the end. */
static int parse_n(const char *text, size_t len, int flags)
{
    sl_likwid_free(&lw);
    sl_diag_free(&diag);
    char *b = malloc(len ? len : 1);
    cr_assert_not_null(b);
    memcpy(b, text, len);
    int rc = sl_markerfile_parse(b, len, "t", flags, &lw, &info, &diag);
    free(b);
    check_diag_format("t");
    return rc;
}

static int parse(const char *text, int flags)
{
    return parse_n(text, strlen(text), flags);
}

/* A diag line "t:LINE: ...". */
static int diag_at(size_t line)
{
    char head[32];
    snprintf(head, sizeof head, "t:%zu: ", line);
    for (size_t i = 0; i < diag.kept; i++)
        if (strncmp(diag.lines[i], head, strlen(head)) == 0)
            return 1;
    return 0;
}

/* Strict mode: -EINVAL, one diagnostic, at the given line. */
static void strict_fails_at_n(const char *text, size_t len, size_t line)
{
    int rc = parse_n(text, len, SL_MF_STRICT);
    print_diag();
    cr_assert_eq(rc, -EINVAL, "strict rc %d", rc);
    cr_assert_eq(diag.count, 1, "%zu diagnostics", diag.count);
    cr_assert(diag_at(line), "no diagnostic at line %zu: %s", line,
              diag.kept ? diag.lines[0] : "(none)");
    cr_assert_eq(lw.nregions, 0);
}

static void strict_fails_at(const char *text, size_t line)
{
    strict_fails_at_n(text, strlen(text), line);
}

/* Salvage mode: rc 0, regions kept, skipped lines, a diagnostic at line. */
static void salvage_at(const char *text, size_t line, size_t nregions, size_t skipped)
{
    int rc = parse(text, 0);
    print_diag();
    cr_assert_eq(rc, 0, "salvage rc %d", rc);
    cr_assert(diag_at(line), "no diagnostic at line %zu", line);
    cr_assert_eq(lw.nregions, nregions, "%zu regions", lw.nregions);
    cr_assert_eq(info.skipped_lines, skipped, "%zu skipped", info.skipped_lines);
    cr_assert_eq(lw.source, SL_SOURCE_MARKER_FILE);
}

static const sl_region *region(const char *tag, int64_t group)
{
    for (size_t i = 0; i < lw.nregions; i++)
        if (strcmp(lw.regions[i].tag, tag) == 0 && lw.regions[i].group_id == group)
            return &lw.regions[i];
    return NULL;
}

/* ------------------------------------------------------------ samples */

typedef struct exp_thread {
    int64_t cpu, count;
    double time;
    double ev[6];
} exp_thread;

typedef struct exp_region {
    const char *tag;
    int64_t group;
    size_t T, E;
    exp_thread th[2];
} exp_region;

static const exp_region ONE_GROUP[] = {
    {"init", 0, 1, 6,
     {{0, 1, 2.513207e-03, {4.182936e+06, 6.874312e+06, 5.277734e+06, 0.0, 2.621440e+05, 0.0}}}},
    {"solve-step", 0, 2, 6,
     {{0, 10, 1.843376e-01,
       {9.871654e+08, 4.425780e+08, 3.871090e+08, 1.310720e+05, 6.553600e+04, 1.258291e+08}},
      {1, 10, 1.854430e-01,
       {9.850321e+08, 4.488129e+08, 3.894203e+08, 1.310720e+05, 6.553600e+04, 1.258291e+08}}}},
    {"io phase", 0, 1, 6,
     {{0, 2, 3.120510e-02, {3.518241e+07, 6.101213e+07, 6.553071e+07, 0.0, 1.024000e+03, 0.0}}}},
};

static const exp_region TWO_GROUPS[] = {
    {"init", 0, 1, 6,
     {{0, 1, 2.513207e-03, {4.182936e+06, 6.874312e+06, 5.277734e+06, 0.0, 2.621440e+05, 0.0}}}},
    {"solve-step", 0, 2, 6,
     {{0, 5, 9.217334e-02,
       {4.935827e+08, 2.212890e+08, 1.935545e+08, 6.553600e+04, 3.276800e+04, 6.291456e+07}},
      {1, 5, 9.271902e-02,
       {4.925161e+08, 2.244065e+08, 1.947102e+08, 6.553600e+04, 3.276800e+04, 6.291456e+07}}}},
    {"solve-step", 1, 2, 5,
     {{0, 5, 9.208815e-02, {4.936118e+08, 2.209987e+08, 1.934021e+08, 4.128753e+07, 2.119840e+05}},
      {1, 5, 9.262077e-02, {4.924982e+08, 2.238701e+08, 1.945129e+08, 4.128753e+07, 2.091170e+05}}}},
    {"residual", 1, 2, 5,
     {{0, 5, 4.341120e-03, {1.287741e+07, 9.120388e+06, 7.980112e+06, 1.610731e+06, 1.043300e+04}},
      {1, 5, 4.362875e-03, {1.287096e+07, 9.177542e+06, 8.015520e+06, 1.610731e+06, 1.011800e+04}}}},
};

static void check_regions(const exp_region *x, size_t n)
{
    cr_assert_eq(lw.source, SL_SOURCE_MARKER_FILE);
    cr_assert_eq(lw.nregions, n, "%zu regions", lw.nregions);
    for (size_t i = 0; i < n; i++) {
        const sl_region *r = &lw.regions[i];
        cr_assert_str_eq(r->tag, x[i].tag);
        cr_assert_eq(r->tag_len, strlen(x[i].tag));
        cr_assert_eq(r->group_id, x[i].group, "region %zu group %lld", i, (long long)r->group_id);
        cr_assert_str_eq(r->group_name, "");
        cr_assert_eq(r->source, SL_SOURCE_MARKER_FILE);
        cr_assert_eq(r->has_names, 0);
        cr_assert_null(r->event_names);
        cr_assert_eq(r->nmetrics, 0);
        cr_assert_eq(r->nthreads, x[i].T, "region %zu T %zu", i, r->nthreads);
        cr_assert_eq(r->nevents, x[i].E, "region %zu E %zu", i, r->nevents);
        for (size_t t = 0; t < x[i].T; t++) {
            cr_assert_eq(r->cpus[t], x[i].th[t].cpu);
            cr_assert_eq(r->call_counts[t], x[i].th[t].count);
            cr_assert_eq(r->times[t], x[i].th[t].time, "region %zu t %zu time %.9e", i, t,
                         r->times[t]);
            for (size_t e = 0; e < x[i].E; e++)
                cr_assert_eq(r->events[e * x[i].T + t], x[i].th[t].ev[e],
                             "region %zu thread %zu event %zu: %.9e", i, t, e,
                             r->events[e * x[i].T + t]);
        }
    }
}

static char *sample_path(const char *file)
{
    const char *dir = getenv("SL_TEST_SAMPLES");
    cr_assert_not_null(dir, "SL_TEST_SAMPLES not set");
    size_t n = strlen(dir) + strlen(file) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", dir, file);
    return p;
}

static int read_sample(const char *file, int flags)
{
    char *p = sample_path(file);
    int rc = sl_markerfile_read(p, flags, &lw, &info, &diag);
    print_diag();
    free(p);
    return rc;
}

/* The sample's bytes, each "\n" turned into "\r\n" when crlf. */
static char *load_sample(const char *file, int crlf, size_t *len)
{
    char *p = sample_path(file);
    FILE *f = fopen(p, "rb");
    cr_assert_not_null(f, "cannot open %s", p);
    free(p);
    char *out = malloc(1 << 16);
    size_t n = 0;
    int ch;
    while ((ch = fgetc(f)) != EOF && n < (1 << 16) - 2) {
        if (ch == '\n' && crlf)
            out[n++] = '\r';
        out[n++] = (char)ch;
    }
    fclose(f);
    *len = n;
    return out;
}

Test(markerfile, v52_one_group)
{
    for (int flags = 0; flags <= SL_MF_STRICT; flags++) {
        setup();
        cr_assert_eq(read_sample("v52_one_group.txt", flags), 0);
        check_regions(ONE_GROUP, 3);
        cr_assert_eq(info.header_threads, 2);
        cr_assert_eq(info.header_regions, 3);
        cr_assert_eq(info.header_groups, 1);
        cr_assert_eq(info.placeholder_lines, 2); /* the cpu -1 lines */
        cr_assert_eq(info.skipped_lines, 0);
        cr_assert_eq(diag.count, 0);
        teardown();
    }
}

Test(markerfile, v52_two_groups)
{
    cr_assert_eq(read_sample("v52_two_groups.txt", SL_MF_STRICT), 0);
    check_regions(TWO_GROUPS, 4);
    cr_assert_eq(info.header_groups, 2);
    cr_assert_eq(info.placeholder_lines, 1);
    cr_assert_eq(diag.count, 0);
}

Test(markerfile, v55_one_group)
{
    cr_assert_eq(read_sample("v55_one_group.txt", SL_MF_STRICT), 0);
    /* placeholders dropped, the real CPU-0 lines (count > 0) kept */
    check_regions(ONE_GROUP, 3);
    cr_assert_eq(info.placeholder_lines, 2);
    cr_assert_eq(diag.count, 0);
}

Test(markerfile, master_one_group)
{
    cr_assert_eq(read_sample("master_one_group.txt", SL_MF_STRICT), 0);
    check_regions(ONE_GROUP, 3);
    cr_assert_eq(info.placeholder_lines, 0);
    cr_assert_eq(diag.count, 0);
}

Test(markerfile, header_only)
{
    cr_assert_eq(read_sample("header_only.txt", SL_MF_STRICT), 0);
    cr_assert_eq(lw.nregions, 0);
    cr_assert_eq(lw.source, SL_SOURCE_MARKER_FILE);
    cr_assert_eq(info.header_threads, 2);
    cr_assert_eq(info.header_regions, 0);
    cr_assert_eq(info.header_groups, 1);
    cr_assert_eq(diag.count, 0);
}

Test(markerfile, samples_with_crlf)
{
    size_t len;
    char *b = load_sample("v52_two_groups.txt", 1, &len);
    cr_assert_eq(parse_n(b, len, SL_MF_STRICT), 0);
    check_regions(TWO_GROUPS, 4);
    free(b);
    b = load_sample("v55_one_group.txt", 1, &len);
    cr_assert_eq(parse_n(b, len, SL_MF_STRICT), 0);
    check_regions(ONE_GROUP, 3);
    free(b);
}

Test(markerfile, samples_with_trailing_empty_lines)
{
    size_t len;
    char *b = load_sample("v52_two_groups.txt", 0, &len);
    memcpy(b + len, "\n\n  \n\t\n\n", 8);
    cr_assert_eq(parse_n(b, len + 8, SL_MF_STRICT), 0);
    check_regions(TWO_GROUPS, 4);
    cr_assert_eq(parse_n(b, len + 4, SL_MF_STRICT), 0); /* ends in blanks without '\n' */
    check_regions(TWO_GROUPS, 4);
    free(b);
}

Test(markerfile, appends_to_existing_regions)
{
    char *p = sample_path("master_one_group.txt");
    cr_assert_eq(sl_markerfile_read(p, 0, &lw, &info, &diag), 0);
    cr_assert_eq(sl_markerfile_read(p, 0, &lw, &info, &diag), 0);
    free(p);
    cr_assert_eq(lw.nregions, 6);
    cr_assert_str_eq(lw.regions[3].tag, "init");
}

/* ------------------------------------------------------------ read errors */

Test(markerfile, missing_file)
{
    const char *p = "/nonexistent/dir/likwid_1.txt";
    cr_assert_eq(sl_markerfile_read(p, 0, &lw, &info, &diag), -ENOENT);
    cr_assert_eq(diag.kept, 1);
    cr_assert_str_eq(diag.lines[0], "/nonexistent/dir/likwid_1.txt: cannot read: No such file or "
                                    "directory: expected a readable marker file");
    cr_assert_eq(lw.nregions, 0);
}

Test(markerfile, directory)
{
    const char *dir = getenv("SL_TEST_SAMPLES");
    cr_assert_eq(sl_markerfile_read(dir, SL_MF_STRICT, &lw, &info, &diag), -EISDIR);
    cr_assert_eq(diag.kept, 1);
    cr_assert_eq(strncmp(diag.lines[0], dir, strlen(dir)), 0);
    cr_assert_not_null(strstr(diag.lines[0], ": cannot read: "));
    cr_assert_not_null(strstr(diag.lines[0], "expected a readable marker file"));
}

Test(markerfile, null_info_and_diag)
{
    cr_assert_eq(sl_markerfile_parse("1 1 1\n0:a-0\nbad\n", 16, "t", 0, &lw, NULL, NULL), 0);
    cr_assert_eq(lw.nregions, 1);
    cr_assert_eq(sl_markerfile_parse("x", 1, "t", 0, &lw, NULL, NULL), -EINVAL);
}

/* ------------------------------------------------------------ defects */

#define HDR2 "2 2 1\n0:a-0\n1:b-0\n"
#define A0 "0 0 0 1 1.000000e+00 2 1.000000e+01 2.000000e+01 \n"
#define A1 "0 0 1 2 2.000000e+00 2 3.000000e+01 4.000000e+01 \n"
#define B0 "1 0 0 3 3.000000e+00 2 5.000000e+01 6.000000e+01 \n"

Test(markerfile, good_base)
{
    cr_assert_eq(parse(HDR2 A0 A1 B0, SL_MF_STRICT), 0);
    cr_assert_eq(lw.nregions, 2);
    const sl_region *a = region("a", 0);
    cr_assert_eq(a->nthreads, 2);
    cr_assert_eq(a->events[0], 10.0);
    cr_assert_eq(a->events[1], 30.0);
    cr_assert_eq(a->events[2], 20.0);
    cr_assert_eq(a->events[3], 40.0);
    cr_assert_eq(region("b", 0)->call_counts[0], 3);
}

Test(markerfile, empty_file)
{
    for (int flags = 0; flags <= SL_MF_STRICT; flags++) {
        cr_assert_eq(parse_n("", 0, flags), -EINVAL);
        cr_assert(diag_at(1));
        cr_assert_eq(parse("\n\n \t\r\n", flags), -EINVAL);
        cr_assert(diag_at(1));
        cr_assert_eq(sl_markerfile_parse(NULL, 0, "t", flags, &lw, &info, &diag), -EINVAL);
    }
}

Test(markerfile, bad_header)
{
    static const char *const bad[] = {
        "2 2\n",          "2 x 1\n",         "-1 2 1\n",     "2 2 1 4\n", "2 2 1x\n",
        "99999999999999999999 1 1\n",        "\n2 2 1\n",    "a:b-0\n",   "2 2 1.0\n",
        "2 2 +1\n",       "2 2 1",           "0x2 1 1\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int flags = 0; flags <= SL_MF_STRICT; flags++) {
            char text[200];
            snprintf(text, sizeof text, "%s0:a-0\n" A0, bad[i]);
            cr_assert_eq(parse(text, flags), -EINVAL, "header '%s' flags %d", bad[i], flags);
            cr_assert(diag_at(1), "header '%s'", bad[i]);
            cr_assert_eq(lw.nregions, 0);
        }
    }
    /* NUL in the header */
    cr_assert_eq(parse_n("2 2\0 1\n0:a-0\n", 13, 0), -EINVAL);
    cr_assert(diag_at(1));
    /* header cut off (no newline at all) */
    cr_assert_eq(parse_n("2 0 1", 5, 0), -EINVAL);
    cr_assert(diag_at(1));
}

Test(markerfile, header_extra_blanks_ok)
{
    cr_assert_eq(parse(" 2\t2  1 \n0:a-0\n1:b-0\n" A0 B0, SL_MF_STRICT), 0);
    cr_assert_eq(info.header_regions, 2);
    cr_assert_eq(parse("9223372036854775807 0 9223372036854775807\n", SL_MF_STRICT), 0);
    cr_assert_eq(info.header_threads, INT64_MAX);
}

Test(markerfile, fewer_region_lines_then_values)
{
    const char *t = "2 3 1\n0:a-0\n1:b-0\n" A0 B0;
    strict_fails_at(t, 4);
    /* salvage: the two regions there are, with their data; no line skipped */
    salvage_at(t, 4, 2, 0);
    cr_assert_eq(region("a", 0)->nthreads, 1);
    cr_assert_eq(region("b", 0)->nthreads, 1);
}

Test(markerfile, fewer_region_lines_at_eof)
{
    const char *t = "2 3 1\n0:a-0\n";
    strict_fails_at(t, 3);
    salvage_at(t, 3, 1, 0);
    cr_assert_eq(lw.regions[0].nthreads, 0);
    cr_assert_eq(parse("2 1 1\n", SL_MF_STRICT), -EINVAL);
    cr_assert(diag_at(2));
}

Test(markerfile, value_line_before_region_lines)
{
    const char *t = "2 2 1\n0:a-0\n" A0 "1:b-0\n" B0;
    strict_fails_at(t, 3);
    /* salvage: a keeps its line; the late region line 4 and b's line 5 go */
    salvage_at(t, 3, 1, 2);
    cr_assert(diag_at(4));
    cr_assert(diag_at(5));
    cr_assert_eq(region("a", 0)->nthreads, 1);
}

Test(markerfile, region_line_without_group_suffix)
{
    static const char *const bad[] = {"1:b", "1:b-", "1:b-x", "1:b-1x", "1:b--", "1:b-+0", "1:"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[300];
        snprintf(text, sizeof text, "2 2 1\n0:a-0\n%s\n" A0 A1 B0, bad[i]);
        strict_fails_at(text, 3);
        /* salvage: region b and its value line go, a stays */
        salvage_at(text, 3, 1, 2);
        cr_assert_eq(region("a", 0)->nthreads, 2);
        cr_assert(diag_at(6), "summary for b's value lines");
    }
}

Test(markerfile, region_line_without_colon)
{
    const char *t = "2 2 1\n0:a-0\nb-0\n" A0 B0;
    strict_fails_at(t, 3);
    salvage_at(t, 3, 1, 2);
    /* a broken line keeps its slot: the next region still gets id 2 */
    const char *t3 = "2 3 1\n0:a-0\nb-0\n2:c-0\n" A0 "2 0 5 1 1.0 0 \n";
    salvage_at(t3, 3, 2, 1);
    cr_assert_eq(region("c", 0)->cpus[0], 5);
    cr_assert_eq(region("c", 0)->nevents, 0);
}

Test(markerfile, region_id_out_of_order)
{
    const char *t = "2 2 1\n0:a-0\n5:b-0\n" A0 B0 B0;
    strict_fails_at(t, 3);
    /* salvage: slot 1 is broken, both lines for it are skipped (reported once) */
    salvage_at(t, 3, 1, 3);
    cr_assert(diag_at(5));
    cr_assert(!diag_at(6));
    cr_assert_eq(diag.count, 2);
    strict_fails_at("2 2 1\n1:a-0\n0:b-0\n", 2);
    strict_fails_at("2 2 1\n0:a-0\n0:b-0\n", 3);
    strict_fails_at("2 2 1\n0:a-0\n99999999999999999999:b-0\n", 3);
}

Test(markerfile, group_id_not_below_ngroups)
{
    const char *t = "2 2 1\n0:a-0\n1:b-1\n" A0 "1 1 0 3 3.0 2 5.0 6.0 \n";
    strict_fails_at(t, 3);
    salvage_at(t, 3, 1, 2);
    strict_fails_at("2 1 0\n0:a-0\n", 2);
    strict_fails_at("2 1 1\n0:a-99999999999999999999\n", 2);
}

Test(markerfile, region_line_beyond_header)
{
    const char *t = "2 1 1\n0:a-0\n1:b-0\n" A0 B0;
    strict_fails_at(t, 3);
    salvage_at(t, 3, 1, 2); /* b's value line then names an unknown region */
    cr_assert(diag_at(5));
    strict_fails_at("2 0 1\n0:a-0\n", 2);
}

Test(markerfile, unknown_region_id)
{
    const char *t = HDR2 A0 "2 0 0 1 1.0 2 1.0 2.0 \n" B0;
    strict_fails_at(t, 5);
    salvage_at(t, 5, 2, 1);
    strict_fails_at(HDR2 "99999999999999999999 0 0 1 1.0 2 1.0 2.0 \n", 4);
}

Test(markerfile, group_differs_from_region)
{
    const char *t = "2 2 2\n0:a-0\n1:b-1\n" A0 "0 1 1 1 1.0 2 1.0 2.0 \n1 1 0 1 1.0 2 1.0 2.0 \n";
    strict_fails_at(t, 5);
    salvage_at(t, 5, 2, 1);
    cr_assert_eq(region("a", 0)->nthreads, 1);
    cr_assert_eq(region("b", 1)->nthreads, 1);
}

Test(markerfile, short_value_line)
{
    static const char *const bad[] = {
        "0 0 1 1 1.0 2 1.0 \n", "0 0 1 1 1.0 2\n", "0 0 1 1 1.0 \n", "0 0 1\n", "0\n",
        "0 0 1 1 1.0 3 1.0 2.0 \n",
        "0 0 1 1 1.0 99999999999999 1.0 2.0 \n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[300];
        snprintf(text, sizeof text, HDR2 A0 "%s" B0, bad[i]);
        strict_fails_at(text, 5);
        salvage_at(text, 5, 2, 1);
        cr_assert_eq(region("a", 0)->nthreads, 1, "line '%s'", bad[i]);
    }
}

Test(markerfile, extra_tokens)
{
    const char *t = HDR2 A0 "0 0 1 1 1.0 2 1.0 2.0 3.0 \n" B0;
    strict_fails_at(t, 5);
    salvage_at(t, 5, 2, 1);
    strict_fails_at(HDR2 "0 0 1 1 1.0 0 x\n", 4);
}

Test(markerfile, non_numeric_fields)
{
    static const char *const bad[] = {
        "x 0 1 1 1.0 2 1.0 2.0 \n",     "0 y 1 1 1.0 2 1.0 2.0 \n",   "0 0 z 1 1.0 2 1.0 2.0 \n",
        "0 0 1 1.5 1.0 2 1.0 2.0 \n",   "0 0 1 1 abc 2 1.0 2.0 \n",   "0 0 1 1 1.0 two 1.0 2.0 \n",
        "0 0 1 1 1.0 2 1.0 2.0x \n",    "0 0 1 1 1.0 2 0x10 2.0 \n",  "0 0 1 1 1.0 2 1.0 1e \n",
        "0 0 1 1 1.0 2 1.0 . \n",       "0 0 1 1 1.0 2 1.0 - \n",     "0 0 1 1 1.0 2 1.0 nanx \n",
        "0 0 1 1 1.0 2 1.0 1,5 \n",     "0 0 1.0 1 1.0 2 1.0 2.0 \n", "0 0 1 1 1.0 -2 1.0 2.0 \n",
        "0 0 1 1 1.0 2 1.0 e5 \n",      "0 0 1 1 1.0 2 1.0 1e+ \n",   "0 0 1 1 1.0 2 1.0 --1 \n",
        "0 0 1 1 1.0 2 1.0 nan(1) \n",  "0 0 1 +1 1.0 2 1.0 2.0 \n",  "0: 0 1 1 1.0 2 1.0 2.0 \n",
        "0 0 1 1 1.0 2 1.0 2.0\r \n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[300];
        snprintf(text, sizeof text, HDR2 A0 "%s" B0, bad[i]);
        strict_fails_at(text, 5);
        salvage_at(text, 5, 2, 1);
        cr_assert_eq(region("a", 0)->nthreads, 1, "line '%s'", bad[i]);
    }
}

Test(markerfile, counts)
{
    /* negative, past INT64_MAX: defects */
    static const char *const bad[] = {
        "0 0 1 -1 1.0 2 1.0 2.0 \n",
        "0 0 1 -0 1.0 2 1.0 2.0 \n",
        "0 0 1 9223372036854775808 1.0 2 1.0 2.0 \n",
        "0 0 1 18446744073709551615 1.0 2 1.0 2.0 \n",
        "0 0 1 99999999999999999999999 1.0 2 1.0 2.0 \n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[300];
        snprintf(text, sizeof text, HDR2 A0 "%s" B0, bad[i]);
        strict_fails_at(text, 5);
        salvage_at(text, 5, 2, 1);
    }
    cr_assert_eq(parse(HDR2 "0 0 1 9223372036854775807 1.0 0 \n", SL_MF_STRICT), 0);
    cr_assert_eq(region("a", 0)->call_counts[0], INT64_MAX);
}

Test(markerfile, cpus)
{
    strict_fails_at(HDR2 "0 0 -2 1 1.0 2 1.0 2.0 \n", 4);
    strict_fails_at(HDR2 "0 0 -01x 1 1.0 2 1.0 2.0 \n", 4);
    strict_fails_at(HDR2 "0 0 9223372036854775808 1 1.0 2 1.0 2.0 \n", 4);
    strict_fails_at(HDR2 "0 0 - 1 1.0 2 1.0 2.0 \n", 4);
    cr_assert_eq(parse(HDR2 "0 0 9223372036854775807 1 1.0 0 \n", SL_MF_STRICT), 0);
    cr_assert_eq(region("a", 0)->cpus[0], INT64_MAX);
}

Test(markerfile, nul_byte)
{
    static const char t[] = HDR2 A0 "0 0 1 1 1.0 2 1.0\0 2.0 \n" B0;
    strict_fails_at_n(t, sizeof t - 1, 5);
    cr_assert_eq(parse_n(t, sizeof t - 1, 0), 0);
    cr_assert(diag_at(5));
    cr_assert_eq(info.skipped_lines, 1);
    cr_assert_eq(lw.nregions, 2);
    /* in a region line: that region goes */
    static const char r[] = "2 2 1\n0:a-0\n1:b\0-0\n" A0 B0;
    strict_fails_at_n(r, sizeof r - 1, 3);
    cr_assert_eq(parse_n(r, sizeof r - 1, 0), 0);
    cr_assert_eq(lw.nregions, 1);
    cr_assert_eq(info.skipped_lines, 2);
}

Test(markerfile, line_cut_off)
{
    const char *t = HDR2 A0 "1 0 0 3 3.000000e+00 2 5.000000e+01 6.0";
    strict_fails_at(t, 5);
    salvage_at(t, 5, 2, 1);
    cr_assert_eq(region("b", 0)->nthreads, 0);
    /* even a complete-looking last line needs its newline */
    t = HDR2 A0 "1 0 0 3 3.000000e+00 2 5.000000e+01 6.000000e+01 ";
    strict_fails_at(t, 5);
    t = "2 2 1\n0:a-0\n1:b-0";
    strict_fails_at(t, 3);
    salvage_at(t, 3, 1, 1);
    t = HDR2 A0 "1 0 0 3 3.0 0\r";
    strict_fails_at(t, 5);
}

Test(markerfile, same_cpu_twice_in_a_region)
{
    /* LIKWID 5.5 labels two threads that shared a CPU with the same cpu:
     * both lines are threads of their own */
    const char *t = HDR2 A0 A1 "0 0 1 5 5.0 2 1.0 2.0 \n" B0;
    cr_assert_eq(parse(t, SL_MF_STRICT), 0);
    const sl_region *a = region("a", 0);
    cr_assert_eq(a->nthreads, 3);
    cr_assert_eq(a->cpus[1], 1);
    cr_assert_eq(a->cpus[2], 1);
    cr_assert_eq(a->call_counts[1], 2);
    cr_assert_eq(a->call_counts[2], 5);
    /* several cpu -1 lines and placeholders are no threads */
    const char *p = HDR2 "0 0 -1 0 0.0 2 0.0 0.0 \n0 0 -1 0 0.0 2 0.0 0.0 \n"
                         "0 0 0 0 0.0 2 0.0 0.0 \n0 0 0 4 1.0 2 1.0 2.0 \n"
                         "0 0 0 0 0.0 2 0.0 0.0 \n";
    cr_assert_eq(parse(p, SL_MF_STRICT), 0);
    cr_assert_eq(info.placeholder_lines, 4);
    cr_assert_eq(region("a", 0)->nthreads, 1);
    cr_assert_eq(region("a", 0)->call_counts[0], 4);
}

Test(markerfile, einval_lines_are_no_counts)
{
    /* LIKWID 5.5 writes -22 (-EINVAL) for every event of a thread whose
     * values it lost, with the cpu it had or -1, and a real count */
    const char *t = HDR2 "0 0 0 3 1.0 2 5.0 6.0 \n"
                         "0 0 2 3 1.0 2 -2.200000e+01 -2.200000e+01 \n"
                         "0 0 -1 1 1.0 2 -2.200000e+01 -2.200000e+01 \n" B0;
    cr_assert_eq(parse(t, SL_MF_STRICT), 0);
    cr_assert_eq(info.lost_lines, 2);
    cr_assert_eq(info.placeholder_lines, 0);
    const sl_region *a = region("a", 0);
    cr_assert_eq(a->nthreads, 1);
    cr_assert_eq(a->cpus[0], 0);
    cr_assert_eq(a->events[0], 5.0);
    /* one -22 among real values is a value */
    cr_assert_eq(parse(HDR2 "0 0 0 3 1.0 2 -2.2e+01 6.0 \n" B0, SL_MF_STRICT), 0);
    cr_assert_eq(info.lost_lines, 0);
    cr_assert_eq(region("a", 0)->nthreads, 1);
    cr_assert_eq(region("a", 0)->events[0], -22.0);
}

Test(markerfile, nevents_differs_within_region)
{
    const char *t = HDR2 A0 "0 0 1 1 1.0 3 1.0 2.0 3.0 \n" B0;
    strict_fails_at(t, 5);
    salvage_at(t, 5, 2, 1);
    /* a placeholder sets the region's nevents too */
    strict_fails_at(HDR2 "0 0 -1 0 0.0 1 0.0 \n" A0, 5);
}

Test(markerfile, empty_line_inside)
{
    const char *t = HDR2 A0 "\n" B0;
    strict_fails_at(t, 5);
    salvage_at(t, 5, 2, 1);
    strict_fails_at(HDR2 A0 " \t\r\n" B0, 5);
}

Test(markerfile, salvage_keeps_going_after_many_defects)
{
    const char *t = "3 4 1\n0:a-0\n1:b\n2:c-7\n3:d-0\n"
                    "0 0 0 1 1.0 1 1.0 \n"
                    "1 0 0 1 1.0 1 1.0 \n"
                    "1 0 1 1 1.0 1 1.0 \n"
                    "2 0 0 1 1.0 1 1.0 \n"
                    "0 0 0 1 1.0 1 1.0 \n"
                    "3 0 0 1 1.0 1 x \n"
                    "3 0 1 2 1.0 1 4.0 \n"
                    "7 0 1 2 1.0 1 4.0 \n";
    strict_fails_at(t, 3);
    cr_assert_eq(parse(t, 0), 0);
    print_diag();
    cr_assert_eq(lw.nregions, 2);
    /* a's second cpu-0 line is a thread of its own (LIKWID 5.5) */
    cr_assert_eq(region("a", 0)->nthreads, 2);
    cr_assert_eq(region("d", 0)->nthreads, 1);
    cr_assert_eq(region("d", 0)->cpus[0], 1);
    /* 2 region lines, 3 lines of b and c, bad value, unknown id */
    cr_assert_eq(info.skipped_lines, 7);
    /* b and c reported once each for their value lines */
    cr_assert_eq(diag.count, 6);
}

/* ------------------------------------------------------------ tolerated */

Test(markerfile, blanks_and_tabs)
{
    const char *t = "2 2 1\n0:a-0 \t\n1:b-0\n"
                    "  0\t0  0 1   1.0e+00\t2 1 2\n"
                    "0 0 1 2 2.0 2 3 4\t\t\n"
                    "\t1 0 0 3 3.0 2 5 6     \n";
    cr_assert_eq(parse(t, SL_MF_STRICT), 0);
    print_diag();
    const sl_region *a = region("a", 0);
    cr_assert_not_null(a);
    cr_assert_eq(a->nthreads, 2);
    cr_assert_eq(a->events[1], 3.0);
    cr_assert_eq(region("b", 0)->events[1], 6.0);
}

Test(markerfile, tags)
{
    const char *t = "1 5 1\n0:-0\n1:solve-step-0\n2:a:b - c:-0\n3:  lead and trail  -0\n"
                    "4:x--0\n"
                    "0 0 0 1 1.0 0 \n1 0 0 1 1.0 0 \n";
    cr_assert_eq(parse(t, SL_MF_STRICT), 0);
    cr_assert_eq(lw.nregions, 5);
    cr_assert_str_eq(lw.regions[0].tag, "");
    cr_assert_eq(lw.regions[0].tag_len, 0);
    cr_assert_eq(lw.regions[0].nthreads, 1);
    cr_assert_str_eq(lw.regions[1].tag, "solve-step");
    cr_assert_str_eq(lw.regions[2].tag, "a:b - c:");
    cr_assert_str_eq(lw.regions[3].tag, "  lead and trail  ");
    cr_assert_str_eq(lw.regions[4].tag, "x-");
    cr_assert_eq(lw.regions[4].nthreads, 0);
}

Test(markerfile, tag_crlf)
{
    cr_assert_eq(parse("1 1 1\r\n0:io phase-0\r\n0 0 0 1 1.0 1 2.0 \r\n", SL_MF_STRICT), 0);
    cr_assert_str_eq(lw.regions[0].tag, "io phase");
    cr_assert_eq(lw.regions[0].events[0], 2.0);
}

Test(markerfile, non_utf8_tag)
{
    static const char t[] = "1 1 1\n0:\xff\xfe a\x80\xc3-0\n0 0 0 1 1.0 0 \n";
    cr_assert_eq(parse_n(t, sizeof t - 1, SL_MF_STRICT), 0);
    cr_assert_eq(lw.regions[0].tag_len, 6);
    cr_assert_eq(memcmp(lw.regions[0].tag, "\xff\xfe a\x80\xc3", 7), 0);
}

Test(markerfile, long_tag)
{
    size_t n = 10240;
    char *tag = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        tag[i] = "ab -:c"[i % 6];
    tag[n] = '\0';
    size_t len = n + 100;
    char *t = malloc(len);
    int k = snprintf(t, len, "1 1 1\n0:%s-0\n0 0 3 1 1.0 1 7.0 \n", tag);
    cr_assert_eq(parse_n(t, (size_t)k, SL_MF_STRICT), 0);
    cr_assert_eq(lw.regions[0].tag_len, n);
    cr_assert_str_eq(lw.regions[0].tag, tag);
    cr_assert_eq(lw.regions[0].cpus[0], 3);
    free(t);
    free(tag);
}

Test(markerfile, many_events)
{
    enum { E = 2000, T = 3 };
    size_t cap = 64 + (size_t)T * (64 + E * 16);
    char *t = malloc(cap);
    size_t n = (size_t)snprintf(t, cap, "%d 1 1\n0:wide-0\n", T);
    for (int th = 0; th < T; th++) {
        n += (size_t)snprintf(t + n, cap - n, "0 0 %d %d %e %d ", th * 2, th + 1, 0.5 * th, E);
        for (int e = 0; e < E; e++)
            n += (size_t)snprintf(t + n, cap - n, "%e ", (double)(e * 7 + th));
        t[n++] = '\n';
    }
    cr_assert_eq(parse_n(t, n, SL_MF_STRICT), 0);
    const sl_region *r = &lw.regions[0];
    cr_assert_eq(r->nthreads, T);
    cr_assert_eq(r->nevents, E);
    for (int th = 0; th < T; th++) {
        cr_assert_eq(r->cpus[th], th * 2);
        cr_assert_eq(r->call_counts[th], th + 1);
        cr_assert_eq(r->times[th], 0.5 * th);
        for (int e = 0; e < E; e++)
            cr_assert_eq(r->events[(size_t)e * T + (size_t)th], (double)(e * 7 + th));
    }
    free(t);
}

Test(markerfile, nan_and_inf)
{
    const char *t = "1 1 1\n0:a-0\n0 0 0 1 nan 7 nan -nan inf -inf NaN INFINITY +1.5E+00 \n";
    cr_assert_eq(parse(t, SL_MF_STRICT), 0);
    const sl_region *r = &lw.regions[0];
    cr_assert(isnan(r->times[0]));
    cr_assert(isnan(r->events[0]));
    cr_assert(isnan(r->events[1]));
    cr_assert(isinf(r->events[2]) && r->events[2] > 0);
    cr_assert(isinf(r->events[3]) && r->events[3] < 0);
    cr_assert(isnan(r->events[4]));
    cr_assert(isinf(r->events[5]));
    cr_assert_eq(r->events[6], 1.5);
    /* nan values make a cpu-0 count-0 line real data, not a placeholder */
    cr_assert_eq(parse("1 1 1\n0:a-0\n0 0 0 0 0.0 1 nan \n", SL_MF_STRICT), 0);
    cr_assert_eq(lw.regions[0].nthreads, 1);
    cr_assert_eq(info.placeholder_lines, 0);
}

Test(markerfile, number_forms)
{
    /* values the fast path cannot take exactly go through strtod_l */
    const char *t = "1 1 1\n0:a-0\n0 0 0 1 1e-400 10 "
                    "1.2345678901234567890123e+00 9.999999e+300 1e999 -0.0 .5 5. "
                    "00000000000000000000000000001 4.9e-324 123456789012345678901234567890 "
                    "0.000000000000000000000000000000000001 \n";
    cr_assert_eq(parse(t, SL_MF_STRICT), 0);
    const sl_region *r = &lw.regions[0];
    cr_assert_eq(r->times[0], 0.0);
    cr_assert_eq(r->events[0], 1.2345678901234567890123e+00);
    cr_assert_eq(r->events[1], 9.999999e+300);
    cr_assert(isinf(r->events[2]));
    cr_assert_eq(r->events[3], 0.0);
    cr_assert(signbit(r->events[3]));
    cr_assert_eq(r->events[4], 0.5);
    cr_assert_eq(r->events[5], 5.0);
    cr_assert_eq(r->events[6], 1.0);
    cr_assert_eq(r->events[7], 4.9e-324);
    cr_assert_eq(r->events[8], 123456789012345678901234567890.0);
    cr_assert_eq(r->events[9], 1e-36);
}

/* Every %e value LIKWID could print reads back to the same double that
 * strtod gives (fast path against libc). */
Test(markerfile, fast_path_matches_strtod)
{
    srand(7);
    enum { N = 4000 };
    char *t = malloc(64 + N * 20);
    size_t n = (size_t)sprintf(t, "1 1 1\n0:a-0\n0 0 0 1 1.0 %d ", N);
    double want[N];
    for (int i = 0; i < N; i++) {
        double v = ldexp((double)rand() / RAND_MAX, rand() % 200 - 100);
        char num[32];
        snprintf(num, sizeof num, "%e", v);
        want[i] = strtod(num, NULL);
        n += (size_t)sprintf(t + n, "%s ", num);
    }
    t[n++] = '\n';
    cr_assert_eq(parse_n(t, n, SL_MF_STRICT), 0);
    for (int i = 0; i < N; i++)
        cr_assert_eq(lw.regions[0].events[i], want[i], "value %d", i);
    free(t);
}

/* ------------------------------------------------------------ placeholders */

Test(markerfile, placeholder_only_region_kept)
{
    const char *t = HDR2 A0 "1 0 0 0 0.000000e+00 2 0.000000e+00 0.000000e+00 \n"
                            "1 0 1 0 0.000000e+00 2 0.000000e+00 -0.000000e+00 \n";
    cr_assert_eq(parse(t, SL_MF_STRICT), 0);
    const sl_region *b = region("b", 0);
    cr_assert_not_null(b);
    cr_assert_eq(b->nthreads, 1); /* cpu 1 with zeros is no placeholder: real data */
    cr_assert_eq(b->cpus[0], 1);
    cr_assert_eq(info.placeholder_lines, 1);
    t = HDR2 A0 "1 0 -1 0 0.0 3 0.0 0.0 0.0 \n1 0 0 0 0.0 3 0.0 0.0 0.0 \n";
    cr_assert_eq(parse(t, SL_MF_STRICT), 0);
    b = region("b", 0);
    cr_assert_eq(b->nthreads, 0);
    cr_assert_eq(b->nevents, 3);
    cr_assert_eq(info.placeholder_lines, 2);
}

Test(markerfile, cpu0_count0_with_time_is_data)
{
    cr_assert_eq(parse(HDR2 "0 0 0 0 1.0e-03 2 0.0 0.0 \n", SL_MF_STRICT), 0);
    cr_assert_eq(region("a", 0)->nthreads, 1);
    cr_assert_eq(region("a", 0)->times[0], 1.0e-03);
    cr_assert_eq(parse(HDR2 "0 0 0 0 0.0 2 0.0 1.0 \n", SL_MF_STRICT), 0);
    cr_assert_eq(region("a", 0)->nthreads, 1);
    /* cpu -1 is dropped whatever it holds */
    cr_assert_eq(parse(HDR2 "0 0 -1 3 1.0 2 5.0 1.0 \n", SL_MF_STRICT), 0);
    cr_assert_eq(region("a", 0)->nthreads, 0);
    cr_assert_eq(info.placeholder_lines, 1);
}

Test(markerfile, v552_sparse_lines_any_order)
{
    /* only some threads, not grouped by region: threads in line order */
    const char *t = "4 2 1\n0:a-0\n1:b-0\n"
                    "1 0 3 1 1.0 1 1.0 \n0 0 2 1 1.0 1 2.0 \n1 0 1 1 1.0 1 3.0 \n";
    cr_assert_eq(parse(t, SL_MF_STRICT), 0);
    const sl_region *b = region("b", 0);
    cr_assert_eq(b->nthreads, 2);
    cr_assert_eq(b->cpus[0], 3);
    cr_assert_eq(b->cpus[1], 1);
    cr_assert_eq(b->events[1], 3.0);
}

/* ------------------------------------------------------------ robustness */

Test(markerfile, diag_lines_are_single_lines)
{
    /* many defects: every message stays "t:LINE: ...", no newline inside */
    const char *t = "1 3 1\n0:a\r\n1:b\r-0\n2:c-0\n\r\n0 0 0 1 x\r 1 \n";
    cr_assert_eq(parse(t, 0), 0);
    cr_assert(diag.count >= 3);
}

Test(markerfile, mutations_never_crash)
{
    size_t len;
    char *base = load_sample("v52_two_groups.txt", 0, &len);
    static const char pick[] = "0123456789 -:\n\r\t.e+x\0";
    srand(12345);
    char *b = malloc(len);
    for (int it = 0; it < 3000; it++) {
        memcpy(b, base, len);
        size_t n = len;
        int edits = 1 + rand() % 4;
        for (int k = 0; k < edits; k++) {
            size_t at = (size_t)rand() % n;
            b[at] = (rand() % 4) ? pick[rand() % (int)(sizeof pick)] : (char)(rand() % 256);
        }
        if (rand() % 5 == 0)
            n = (size_t)rand() % (n + 1);
        for (int flags = 0; flags <= SL_MF_STRICT; flags++) {
            int rc = parse_n(b, n, flags);
            cr_assert(rc == 0 || rc == -EINVAL, "rc %d", rc);
            if (rc == 0) {
                cr_assert(info.skipped_lines <= n);
                for (size_t i = 0; i < lw.nregions; i++) {
                    const sl_region *r = &lw.regions[i];
                    cr_assert_eq(strlen(r->tag), r->tag_len);
                    for (size_t j = 0; j < r->nthreads * r->nevents; j++)
                        (void)r->events[j];
                }
            } else if (flags) {
                cr_assert_eq(diag.count, 1);
            }
        }
    }
    free(b);
    free(base);
}

/* 128 threads x 1000 regions x 8 events (17 MB): every region and thread kept. */
Test(markerfile, large_file)
{
    enum { T = 128, R = 1000, E = 8 };
    size_t cap = (size_t)R * T * 160 + (size_t)R * 32 + 64;
    char *t = malloc(cap);
    size_t n = (size_t)snprintf(t, cap, "%d %d 1\n", T, R);
    for (int r = 0; r < R; r++)
        n += (size_t)snprintf(t + n, cap - n, "%d:region number %d-0\n", r, r);
    char row[200];
    for (int r = 0; r < R; r++)
        for (int th = 0; th < T; th++) {
            int k = snprintf(row, sizeof row, "%d 0 %d %d %e %d ", r, th, r + 1, 1e-3 * th, E);
            for (int e = 0; e < E; e++)
                k += snprintf(row + k, sizeof row - (size_t)k, "%e ", 1e6 * (e + 1) + th + r);
            row[k++] = '\n';
            memcpy(t + n, row, (size_t)k);
            n += (size_t)k;
        }
    /* Correctness at scale only: speed is measured in bench/, not here. */
    int rc = sl_markerfile_parse(t, n, "big", SL_MF_STRICT, &lw, &info, &diag);
    cr_assert_eq(rc, 0);
    cr_assert_eq(lw.nregions, R);
    const sl_region *last = &lw.regions[R - 1];
    cr_assert_eq(last->nthreads, T);
    cr_assert_eq(last->cpus[T - 1], T - 1);
    cr_assert_eq(last->call_counts[0], R);
    cr_assert_eq(last->events[7 * T + 5], 8e6 + 5 + (R - 1));
    free(t);
}
