/* core/likwid/formula.h and core/likwid/groupfile.h: LIKWID's metric formulas (the
 * calculator's precedence, its functions, its 20-decimal rounding, a
 * division by zero as no value) and group files (sections, metric names,
 * one FILE:LINE diagnostic per defect, a metric LIKWID cannot compute left
 * out with its reason); hostile input stays within the fixed bounds. */
#include <criterion/criterion.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formula.h"
#include "groupfile.h"

static char *names2[] = {"A", "B"};

/* text evaluated with A, B, time = 2 (inverseClock 1/2e9); rc of compile in *rc */
static double eval2(const char *text, double a, double b, int *rc)
{
    sl_formula f;
    char err[256] = "";
    *rc = sl_formula_compile(text, names2, 2, &f, err, sizeof err);
    if (*rc)
        return NAN;
    double vars[2 + SL_FV_N] = {a, b};
    vars[2 + SL_FV_TIME] = 2;
    vars[2 + SL_FV_INVERSE_CLOCK] = 1 / 2e9;
    vars[2 + SL_FV_TRUE] = 1;
    double v = sl_formula_eval(&f, vars);
    sl_formula_free(&f);
    return v;
}

#define EXPECT(text, a, b, want)                                                   \
    do {                                                                          \
        int rc_;                                                                  \
        double got_ = eval2(text, a, b, &rc_);                                    \
        cr_assert_eq(rc_, 0, "%s: compile %d", text, rc_);                        \
        cr_assert(fabs(got_ - (want)) <= 1e-12 * fabs((double)(want)), "%s = %.17g, expected %.17g", \
                  text, got_, (double)(want));                                    \
    } while (0)

Test(formula, likwid_arithmetic)
{
    EXPECT("1.0E-06*(A*2.0+B)/time", 3e6, 1e6, 3.5);
    EXPECT("1.E-06*(A/B)/inverseClock", 3, 2, 3000);
    EXPECT("2+3*4^2", 0, 0, 50);
    EXPECT("2^3^2", 0, 0, 512);            /* right-associative */
    EXPECT("-2^2", 0, 0, 4);               /* LIKWID: the sign belongs to the number */
    EXPECT("10%4", 0, 0, 2);
    EXPECT("A - -B", 5, 2, 7);
    EXPECT(" ( A + B ) * true ", 1, 2, 3);
    EXPECT("min(3,A,2)", 1, 0, 1);
    EXPECT("max(A,5)", 7, 0, 7);
    EXPECT("avg(1,2,A)", 3, 0, 2);
    EXPECT("sum(1,2,A)", 3, 0, 6);
    EXPECT("sqrt(A)+abs(-B)", 16, 3, 7);
    EXPECT(".5*A", 4, 0, 2);
}

Test(formula, nan_counter_is_zero_and_div_by_zero_no_value)
{
    int rc;
    EXPECT("A+1", NAN, 0, 1);
    EXPECT("A+1", INFINITY, 0, 1);
    cr_assert(isnan(eval2("A/B", 1, 0, &rc)));
    cr_assert_eq(rc, 0);
    cr_assert(isnan(eval2("A%B", 1, 0, &rc)));
}

Test(formula, values_rounded_to_20_decimals)
{
    /* LIKWID passes every value on as "%.20f": 1e-21 becomes 0 */
    cr_assert_eq(sl_formula_round(1e-21), 0);
    cr_assert_eq(sl_formula_round(1.0 / 3), strtod("0.33333333333333331483", NULL));
    cr_assert_eq(sl_formula_round(1e300), 1e300);
    int rc;
    cr_assert_eq(eval2("A*1e30", 1e-21, 0, &rc), 0);
    cr_assert_eq(eval2("(A/1e30)*1e30", 1, 0, &rc), 0); /* the quotient is rounded too */
}

Test(formula, counters_with_options_match_as_text)
{
    char *n[] = {"PMC3", "PMC3:EDGEDETECT", "CBOX0C1:STATE=0x1"};
    sl_formula f;
    char err[256];
    cr_assert_eq(sl_formula_compile("PMC3/PMC3:EDGEDETECT+CBOX0C1:STATE=0x1", n, 3, &f, err,
                                    sizeof err), 0, "%s", err);
    double vars[3 + SL_FV_N] = {6, 2, 10};
    cr_assert_eq(sl_formula_eval(&f, vars), 13);
    sl_formula_free(&f);
}

/* compile must fail with rc and a message holding want */
static void refuse(const char *text, int want_rc, const char *want)
{
    sl_formula f;
    char err[256] = "";
    int rc = sl_formula_compile(text, names2, 2, &f, err, sizeof err);
    cr_assert_eq(rc, want_rc, "'%.60s': rc %d, expected %d (%s)", text, rc, want_rc, err);
    cr_assert(strstr(err, want), "'%.60s': '%s' lacks '%s'", text, err, want);
}

Test(formula, refuses_with_one_line_reason)
{
    refuse("(A", -EINVAL, "not closed");
    refuse("A+", -EINVAL, "formula ends");
    refuse("A B", -EINVAL, "after a complete formula");
    refuse("A$", -EINVAL, "'$'");
    refuse("", -EINVAL, "formula ends");
    refuse("foo(1)", -EINVAL, "unknown function 'foo'");
    refuse("sqrt(1,2)", -EINVAL, "sqrt() with 2 arguments");
    refuse("1.E", -EINVAL, "exponent without digits");
    refuse("Z*2", -ENOENT, "Z is not in the EVENTSET");
}

/* s = unit repeated n times, then tail */
static void repeat(char *s, const char *unit, size_t n, const char *tail)
{
    size_t u = strlen(unit);
    for (size_t i = 0; i < n; i++)
        memcpy(s + u * i, unit, u);
    strcpy(s + u * n, tail);
}

Test(formula, hostile_sizes_are_bounded)
{
    char *s = malloc(8000);
    cr_assert_not_null(s);
    repeat(s, "1", 5000, "");
    refuse(s, -EINVAL, "longer than 4095");
    repeat(s, "1+", 2000, "1");
    refuse(s, -EINVAL, "more than 1024 operands");
    repeat(s, "(", 100, "1");
    refuse(s, -EINVAL, "nested more than 64");
    repeat(s, "1^", 1000, "1");
    refuse(s, -EINVAL, "nested more than 64");
    repeat(s, "-", 3000, "1");
    refuse(s, -EINVAL, "nested more than 64");
    free(s);
}

static const char good[] =
    "SHORT test\n"
    "\n"
    "EVENTSET\n"
    "FIXC0 INSTR_RETIRED_ANY\n"
    "FIXC1  CPU_CLK_UNHALTED_CORE\n"
    "PMC0:EDGEDETECT EV_X\n"
    "\n"
    "METRICS\n"
    "Runtime (RDTSC) [s] time\n"
    "Clock   [MHz]  1.E-06*FIXC1/time/inverseClock\n"
    "CPI  FIXC1/FIXC0\n"
    "Broken metric FIXC1+PMC7\n"
    "Edges PMC0:EDGEDETECT*2\n"
    "\n"
    "LONG\n"
    "METRICS are not here: LONG is text\n";

Test(groupfile, parses_like_likwid)
{
    sl_group_file g;
    sl_diag d;
    sl_diag_init(&d);
    cr_assert_eq(sl_group_file_parse(good, strlen(good), "G.txt", "G", &g, &d), 0);
    cr_assert_eq(d.count, 0);
    cr_assert_eq(g.nevents, 3);
    cr_assert_str_eq(g.counters[2], "PMC0:EDGEDETECT");
    cr_assert_str_eq(g.events[1], "CPU_CLK_UNHALTED_CORE");
    cr_assert_eq(g.nmetrics, 5);
    cr_assert_str_eq(g.metric_names[1], "Clock [MHz]");
    cr_assert_null(g.unusable[2]);
    cr_assert_not_null(g.unusable[3]);
    cr_assert(strstr(g.unusable[3], "G.txt:12:"), "%s", g.unusable[3]);

    /* applied to a region of two threads, without a clock */
    sl_likwid lw;
    sl_likwid_init(&lw);
    sl_region *r = sl_likwid_add(&lw, "t", 1, 0, "", SL_SOURCE_MARKER_FILE, 2, 3, 0, 0);
    cr_assert_not_null(r);
    double ev[6] = {100, 200, 300, 600, 5, 7};
    memcpy(r->events, ev, sizeof ev);
    r->times[0] = 2;
    r->times[1] = 4;
    sl_group_node node = {.clock_hz = NAN, .num_sockets = NAN, .num_numadomains = NAN};
    char left[512];
    long n = sl_group_apply(&g, &node, r, left, sizeof left);
    cr_assert_eq(n, 2, "%ld left out: %s", n, left);
    cr_assert(strstr(left, "Clock [MHz] (needs the clock)"), "%s", left);
    cr_assert(strstr(left, "Broken metric (G.txt:12:"), "%s", left);
    cr_assert_eq(r->nmetrics, 3);
    cr_assert_str_eq(r->metric_names[1], "CPI");
    cr_assert_str_eq(r->event_names[2], "EV_X");
    cr_assert_str_eq(r->counter_names[0], "FIXC0");
    cr_assert_str_eq(r->group_name, "G");
    cr_assert_eq(r->metrics[0 * 2 + 1], 4);    /* time of thread 1 */
    cr_assert_eq(r->metrics[1 * 2 + 0], 3);    /* CPI thread 0: 300/100 */
    cr_assert_eq(r->metrics[1 * 2 + 1], 3);    /* 600/200 */
    cr_assert_eq(r->metrics[2 * 2 + 1], 14);   /* Edges thread 1 */

    /* with a clock every computable metric is there */
    node.clock_hz = 1e9;
    n = sl_group_apply(&g, &node, r, left, sizeof left);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(r->metric_names[1], "Clock [MHz]");
    cr_assert(fabs(r->metrics[1 * 2 + 0] - 150000) < 1e-6, "%.17g", r->metrics[2]);

    /* a region of another event count is left as it is */
    sl_region *r2 = sl_likwid_add(&lw, "u", 1, 0, "", SL_SOURCE_MARKER_FILE, 1, 2, 0, 0);
    cr_assert_eq(sl_group_apply(&g, &node, r2, left, sizeof left), -EINVAL);
    cr_assert_eq(r2->nmetrics, 0);
    cr_assert_eq(r2->has_names, 0);
    sl_likwid_free(&lw);
    sl_group_file_free(&g);
    sl_diag_free(&d);
}

/* text must be refused with one diagnostic holding want */
static void bad_file(const char *text, size_t len, const char *want)
{
    sl_group_file g;
    sl_diag d;
    sl_diag_init(&d);
    cr_assert_eq(sl_group_file_parse(text, len, "B.txt", "B", &g, &d), -EINVAL, "%s", want);
    cr_assert_eq(d.count, 1, "%s: %zu diagnostics", want, d.count);
    cr_assert(strstr(d.lines[0], want), "'%s' lacks '%s'", d.lines[0], want);
    sl_diag_free(&d);
}

Test(groupfile, refuses_with_file_and_line)
{
    bad_file("EVENTSET\nPMC0 A B\n", strlen("EVENTSET\nPMC0 A B\n"), "B.txt:2: EVENTSET line of 3 words");
    bad_file("EVENTSET\nPMC0\n", strlen("EVENTSET\nPMC0\n"), "B.txt:2: EVENTSET line of 1 words");
    bad_file("EVENTSET\nPMC0 A\nPMC0 B\n", strlen("EVENTSET\nPMC0 A\nPMC0 B\n"), "B.txt:3: counter PMC0 a second time");
    bad_file("EVENTSET\nPMC0 A\n\nMETRICS\nlonely\n", strlen("EVENTSET\nPMC0 A\n\nMETRICS\nlonely\n"), "B.txt:5: METRICS line of one word");
    bad_file("SHORT x\nLONG y\n", strlen("SHORT x\nLONG y\n"), "B.txt: no EVENTSET lines");
    bad_file("EVENTSET\nPMC0 A\0\n", 17, "B.txt:2: NUL byte");
    char *big = malloc(6000);
    cr_assert_not_null(big);
    memcpy(big, "EVENTSET\n", 9);
    memset(big + 9, 'x', 5000);
    bad_file(big, 5009, "B.txt:2: line of 5000 bytes");
    free(big);
    /* more events than the bound */
    size_t cap = 1100 * 16, len = 0;
    char *many = malloc(cap);
    cr_assert_not_null(many);
    len += (size_t)sprintf(many, "EVENTSET\n");
    for (int i = 0; i < 1100; i++)
        len += (size_t)sprintf(many + len, "C%d E\n", i);
    bad_file(many, len, "B.txt:1026: more than 1024 events");
    free(many);
}

Test(groupfile, load_refuses_path_tricks)
{
    sl_group_file g;
    sl_diag d;
    sl_diag_init(&d);
    cr_assert_eq(sl_group_file_load("/nonexistent", "..", "FLOPS_DP", &g, &d), -EINVAL);
    cr_assert(strstr(d.lines[0], "expected plain names"), "%s", d.lines[0]);
    cr_assert_eq(sl_group_file_load("/nonexistent", "skylakeX", "NOPE", &g, &d), -ENOENT);
    cr_assert(strstr(d.lines[1], "/nonexistent/skylakeX/NOPE.txt: cannot read"), "%s", d.lines[1]);
    sl_diag_free(&d);
}
