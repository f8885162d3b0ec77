/* `scope-likwid diff` for CI systems (diff.h): JUnit XML (Jenkins, GitLab),
 * GitHub Actions' workflow commands and a Markdown step summary. Each is
 * written beside the table, from the same rows and cells. */
#include "diff.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Is the row a test that did not run (nothing to compare, or let pass
 * under --allow-missing)? */
static int row_skipped(const sl_diff_row *r)
{
    return r->gate == SL_GATE_NONE &&
           (r->verdict == SL_V_ONLY_NEW || r->verdict == SL_V_ONLY_BASE || r->verdict == SL_V_NO_DATA);
}

/* Appends to buf (of len) at *at, never past its end. */
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    if (*at >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    *at = n < 0 ? len : *at + (size_t)n;
}

/* What a row found, in one line: "rank0 solve (timing time/call [ms],
 * median): slower +50.0% (base 1, new 1.5)". */
static void row_line(const sl_diff_row *r, char *buf, size_t len)
{
    char src[SL_DIFF_CELL_BUF], q[SL_DIFF_CELL_BUF], chg[SL_DIFF_CELL_BUF], b[SL_DIFF_CELL_BUF],
        n[SL_DIFF_CELL_BUF];
    const char *source = sl_diff_cell(r, SL_DIFF_COL_SOURCE, src);
    const char *quantity = sl_diff_cell(r, SL_DIFF_COL_QUANTITY, q);
    const char *change = sl_diff_cell(r, SL_DIFF_COL_CHANGE, chg);
    const char *bv = sl_diff_cell(r, SL_DIFF_COL_BASE, b), *nv = sl_diff_cell(r, SL_DIFF_COL_NEW, n);
    size_t at = 0;
    buf[0] = '\0';
    put(buf, len, &at, "%s %s", r->rank, r->region);
    if (*source)
        put(buf, len, &at, " (%s %s%s%s)", source, quantity, *r->statistic ? ", " : "",
            r->statistic);
    put(buf, len, &at, ": %s", sl_verdict_name(r->verdict));
    if (*change)
        put(buf, len, &at, " %s", change);
    if (*bv || *nv)
        put(buf, len, &at, " (base %s, new %s)", *bv ? bv : "-", *nv ? nv : "-");
    if (r->missing)
        put(buf, len, &at, ": missing in new%s", r->gate == SL_GATE_FAIL ? "" : " (allowed)");
}

/* ---- JUnit XML ------------------------------------------------------------- */

/* s as XML character data or attribute value; control bytes (not allowed
 * in XML 1.0) as '?', newlines kept in text. */
static void xml_text(FILE *f, const char *s, int attr)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\n': fputs(attr ? "&#10;" : "\n", f); break;
        default: fputc(ch < 0x20 || ch == 0x7f ? '?' : ch, f);
        }
    }
}

/* name="A SEP B" with A and B as XML text, SEP only when B is not empty */
static void xml_attr2(FILE *f, const char *name, const char *a, const char *sep, const char *b)
{
    fprintf(f, " %s=\"", name);
    xml_text(f, a, 1);
    if (*b) {
        fputs(sep, f);
        xml_text(f, b, 1);
    }
    fputc('"', f);
}

static void xml_attr(FILE *f, const char *name, const char *value)
{
    xml_attr2(f, name, value, "", "");
}

static void junit_counts(FILE *f, size_t tests, size_t failures, size_t errors, size_t skipped)
{
    fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\"", tests, failures,
            errors, skipped);
}

static void junit_case(FILE *f, const sl_diff_row *r)
{
    char q[SL_DIFF_CELL_BUF], src[SL_DIFF_CELL_BUF], line[4 * SL_DIFF_CELL_BUF];
    fputs("    <testcase", f);
    xml_attr2(f, "name", r->region, " ", sl_diff_cell(r, SL_DIFF_COL_QUANTITY, q));
    xml_attr2(f, "classname", r->rank, ".", sl_diff_cell(r, SL_DIFF_COL_SOURCE, src));
    if (r->gate != SL_GATE_FAIL && !row_skipped(r)) {
        fputs("/>\n", f);
        return;
    }
    fputs(">\n      ", f);
    row_line(r, line, sizeof line);
    if (r->gate == SL_GATE_FAIL) {
        fputs("<failure", f);
        xml_attr(f, "message", line);
        xml_attr(f, "type", r->missing ? "missing" : "regression");
        fputs(">", f);
        xml_text(f, line, 0);
        fputs("</failure>\n", f);
    } else {
        fputs("<skipped", f);
        xml_attr(f, "message", line);
        fputs("/>\n", f);
    }
    fputs("    </testcase>\n", f);
}

void sl_diff_print_junit(FILE *f, const sl_diff *d, const char *base, const char *new_,
                         const char *verdict, const char *error)
{
    size_t skipped = 0, tests = error ? 1 : d->n;
    for (size_t i = 0; i < d->n; i++)
        skipped += row_skipped(&d->rows[i]);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", f);
    xml_attr(f, "name", "scope-likwid diff");
    junit_counts(f, tests, d->failed, error != NULL, skipped);
    fputs(">\n  <testsuite", f);
    xml_attr2(f, "name", base, " vs ", new_);
    junit_counts(f, tests, d->failed, error != NULL, skipped);
    fputs(">\n    <properties>\n      <property name=\"base\"", f);
    xml_attr(f, "value", base);
    fputs("/>\n      <property name=\"new\"", f);
    xml_attr(f, "value", new_);
    fputs("/>\n    </properties>\n", f);
    if (error) {
        fputs("    <testcase name=\"comparison\" classname=\"scope-likwid diff\">\n      <error", f);
        xml_attr(f, "message", error);
        fputs(">", f);
        xml_text(f, error, 0);
        fputs("</error>\n    </testcase>\n", f);
    }
    for (size_t i = 0; i < d->n; i++)
        junit_case(f, &d->rows[i]);
    fputs("    <system-err>", f);
    for (size_t i = 0; i < d->nwarnings; i++) {
        xml_text(f, d->warnings[i], 0);
        fputc('\n', f);
    }
    xml_text(f, verdict, 0);
    fputs("</system-err>\n  </testsuite>\n</testsuites>\n", f);
}

/* ---- GitHub Actions -------------------------------------------------------- */

/* A workflow command's message: %, CR and LF encoded. */
static void gh_command(FILE *f, const char *kind, const char *msg)
{
    fprintf(f, "::%s title=scope-likwid diff::", kind);
    for (const char *p = msg; *p; p++) {
        if (*p == '%')
            fputs("%25", f);
        else if (*p == '\r')
            fputs("%0D", f);
        else if (*p == '\n')
            fputs("%0A", f);
        else
            fputc(*p, f);
    }
    fputc('\n', f);
}

void sl_diff_print_github(FILE *f, const sl_diff *d, const char *error)
{
    char line[4 * SL_DIFF_CELL_BUF];
    if (error)
        gh_command(f, "error", error);
    for (size_t i = 0; i < d->nwarnings; i++)
        gh_command(f, "warning", d->warnings[i]);
    for (size_t i = 0; i < d->n; i++) {
        const sl_diff_row *r = &d->rows[i];
        if (r->gate != SL_GATE_FAIL && !r->missing)
            continue;
        row_line(r, line, sizeof line);
        gh_command(f, r->gate == SL_GATE_FAIL ? "error" : "warning", line);
    }
}

/* ---- Markdown --------------------------------------------------------------- */

/* s in a Markdown table cell: | and Markdown's own characters escaped,
 * HTML's as entities, control bytes as '?'. */
static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '&')
            fputs("&amp;", f);
        else if (ch == '<')
            fputs("&lt;", f);
        else if (ch == '>')
            fputs("&gt;", f);
        else if (strchr("|\\`*_[]#", ch))
            fprintf(f, "\\%c", ch);
        else
            fputc(ch < 0x20 || ch == 0x7f ? '?' : ch, f);
    }
}

void sl_diff_print_markdown(FILE *f, const sl_diff *d, const char *base, const char *new_,
                            const char *verdict, const char *error)
{
    fputs("### scope-likwid diff: ", f);
    md_text(f, base);
    fputs(" vs ", f);
    md_text(f, new_);
    fputs("\n\n", f);
    if (d->n) {
        size_t ncols = sl_diff_with_min(d) ? SL_DIFF_NCOLS : SL_DIFF_COL_BASE_MIN;
        char b[SL_DIFF_CELL_BUF];
        for (size_t c = 0; c < ncols; c++)
            fprintf(f, "| %s ", sl_diff_col_head[c]);
        fputs("|\n", f);
        for (size_t c = 0; c < ncols; c++)
            fputs(c < 2 ? "| :-- " : "| --: ", f);
        fputs("|\n", f);
        for (size_t i = 0; i < d->n; i++) {
            for (size_t c = 0; c < ncols; c++) {
                fputs("| ", f);
                md_text(f, sl_diff_cell(&d->rows[i], (sl_diff_col)c, b));
                fputc(' ', f);
            }
            fputs("|\n", f);
        }
        fputc('\n', f);
    }
    for (size_t i = 0; i < d->nwarnings; i++) {
        fputs("- warning: ", f);
        md_text(f, d->warnings[i]);
        fputc('\n', f);
    }
    fputs(d->nwarnings ? "\n**" : "**", f);
    md_text(f, error ? error : verdict);
    fputs("**\n\n", f);
}
