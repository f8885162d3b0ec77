/* scope-likwid diff: compares two result files region by region, for CI.
 * Exit 1 when a region got slower than the threshold (or an input is bad:
 * the last stderr line says which), 0 otherwise. */
#include "cmds.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_json.h"
#include "cli_files.h"
#include "diff.h"
#include "h5read.h"
#include "table.h"

static const char usage[] =
    "usage: scope-likwid diff BASE.h5 NEW.h5 [--threshold PCT] [--metric NAME]...\n"
    "                         [--csv | --json]\n"
    "\n"
    "Compares the region runtimes of two result files, rank by rank (ranks by\n"
    "number; the k-th rank<R>.<k> group of a merged file with the k-th of the\n"
    "other), regions by exact tag (LIKWID regions by tag and group id).\n"
    "\n"
    "  timing rows (the shim's timing, ms per call):\n"
    "     statistic \"median\": both files kept per-call samples of the region:\n"
    "       the median per-call duration is compared; base/new min give the\n"
    "       fastest call;\n"
    "     statistic \"mean\": otherwise, total time / calls over all threads.\n"
    "  likwid rows (when a rank has LIKWID data, s per call):\n"
    "     runtime/call, statistic \"max thread\": the slowest thread's LIKWID\n"
    "       time divided by that thread's calls;\n"
    "     each --metric NAME (a metric name, or else an event label),\n"
    "       statistic \"thread mean\": the mean over threads; verdict higher\n"
    "       or lower (never fails the comparison).\n"
    "\n"
    "  --threshold PCT  \"10%\" or \"10\": percent (\"0.1\" is 0.1 %); a change\n"
    "                   beyond it is slower/faster (higher/lower), else same.\n"
    "                   Default 10%.\n"
    "  --metric NAME    also compare this LIKWID metric (repeatable)\n"
    "  --csv            CSV: rank,region,source,group_id,group_name,quantity,\n"
    "                   unit,statistic,base,new,change_pct,base_min,new_min,\n"
    "                   verdict (empty: no value)\n"
    "  --json           {\"base\",\"new\",\"threshold_pct\",\"slower\",\"rows\":[{the\n"
    "                   same fields}]}; no value: null\n"
    "  -h, --help       this help\n"
    "\n"
    "Verdicts: slower, faster, same, higher, lower, only in base, only in new,\n"
    "no data (present in both, nothing to compare). Regions or ranks in one\n"
    "file only are reported and do not fail the comparison.\n"
    "Exit codes: 0 nothing slower than the threshold; 1 some region slower, or\n"
    "an input unreadable (the last line on stderr says which); 2 usage error.\n";

enum diff_format { FMT_TABLE, FMT_CSV, FMT_JSON };

/* "N%" or "N": N percent, finite, >= 0. */
static int parse_threshold(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno)
        return -EINVAL;
    if (*end == '%')
        end++;
    if (*end || !isfinite(v) || v < 0)
        return -EINVAL;
    *out = v;
    return 0;
}

/* "timing" or "likwid g<id> NAME" */
static void source_text(const sl_diff_row *r, char *buf, size_t len)
{
    if (r->group_id < 0)
        snprintf(buf, len, "%s", r->quantity[0] ? "timing" : "");
    else
        snprintf(buf, len, "likwid g%lld%s%s", (long long)r->group_id, *r->group_name ? " " : "",
                 r->group_name);
}

static const char *num(double v, char buf[SL_NUM_BUF])
{
    return isnan(v) ? NULL : sl_fmt_value(v, buf);
}

static void print_table(FILE *f, const sl_diff *d)
{
    int with_min = 0;
    for (size_t i = 0; i < d->n; i++)
        with_min |= !isnan(d->rows[i].base_min) || !isnan(d->rows[i].new_min);
    static const char *const head[] = {"Rank", "Region", "Source", "Quantity", "Statistic", "Base",
                                       "New", "Change", "Verdict", "Base min", "New min"};
    size_t ncols = with_min ? 11 : 9;
    sl_table t;
    sl_table_init(&t, ncols);
    if (sl_table_add_row(&t) < 0)
        goto out;
    for (size_t c = 0; c < ncols; c++)
        sl_table_set(&t, 0, c, head[c]);
    char b[SL_NUM_BUF], src[300];
    for (size_t i = 0; i < d->n; i++) {
        const sl_diff_row *r = &d->rows[i];
        long row = sl_table_add_row(&t);
        if (row < 0)
            goto out;
        size_t ro = (size_t)row;
        /* control bytes would break the table's lines */
        for (char *p = r->region; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        source_text(r, src, sizeof src);
        sl_table_set(&t, ro, 0, r->rank);
        sl_table_set(&t, ro, 1, r->region);
        sl_table_set(&t, ro, 2, src[0] ? src : NULL);
        if (r->quantity[0])
            sl_table_setf(&t, ro, 3, "%s%s%s%s", r->quantity, *r->unit ? " [" : "", r->unit,
                          *r->unit ? "]" : "");
        sl_table_set(&t, ro, 4, r->statistic[0] ? r->statistic : NULL);
        sl_table_set(&t, ro, 5, num(r->base, b));
        sl_table_set(&t, ro, 6, num(r->new_, b));
        if (!isnan(r->change_pct))
            sl_table_setf(&t, ro, 7, "%+.1f%%", r->change_pct);
        else if (r->verdict == SL_V_SLOWER || r->verdict == SL_V_HIGHER)
            sl_table_set(&t, ro, 7, "+inf");
        else if (r->verdict == SL_V_FASTER || r->verdict == SL_V_LOWER)
            sl_table_set(&t, ro, 7, "-inf");
        sl_table_set(&t, ro, 8, sl_verdict_name(r->verdict));
        if (with_min) {
            sl_table_set(&t, ro, 9, num(r->base_min, b));
            sl_table_set(&t, ro, 10, num(r->new_min, b));
        }
    }
    sl_table_print(f, &t, 1);
out:
    sl_table_free(&t);
}

static void csv_num(FILE *f, double v)
{
    char b[SL_NUM_BUF];
    fputc(',', f);
    if (!isnan(v))
        fputs(sl_fmt_exact(v, b), f);
}

static void print_csv(FILE *f, const sl_diff *d)
{
    fputs("rank,region,source,group_id,group_name,quantity,unit,statistic,base,new,change_pct,"
          "base_min,new_min,verdict\n", f);
    for (size_t i = 0; i < d->n; i++) {
        const sl_diff_row *r = &d->rows[i];
        fprintf(f, "%s,", r->rank);
        sl_csv_field(f, r->region);
        fprintf(f, ",%s,", r->group_id >= 0 ? "likwid" : (r->quantity[0] ? "timing" : ""));
        if (r->group_id >= 0)
            fprintf(f, "%lld", (long long)r->group_id);
        fputc(',', f);
        sl_csv_field(f, r->group_name);
        fputc(',', f);
        sl_csv_field(f, r->quantity);
        fprintf(f, ",%s,%s", r->unit, r->statistic);
        csv_num(f, r->base);
        csv_num(f, r->new_);
        csv_num(f, r->change_pct);
        csv_num(f, r->base_min);
        csv_num(f, r->new_min);
        fprintf(f, ",%s\n", sl_verdict_name(r->verdict));
    }
}

/* diff escapes every control byte as \u00XX (csv_json.h) */
#define DIFF_ESC ""

static void json_num(FILE *f, const char *key, double v)
{
    fprintf(f, ",\"%s\":", key);
    sl_json_double(f, v);
}

static void print_json(FILE *f, const sl_diff *d, const char *base, const char *new_,
                       double threshold, size_t slower)
{
    char b[SL_NUM_BUF];
    fputs("{\"base\":", f);
    sl_json_string(f, base, DIFF_ESC);
    fputs(",\"new\":", f);
    sl_json_string(f, new_, DIFF_ESC);
    fprintf(f, ",\"threshold_pct\":%s,\"slower\":%zu,\"rows\":[", sl_fmt_exact(threshold, b),
            slower);
    for (size_t i = 0; i < d->n; i++) {
        const sl_diff_row *r = &d->rows[i];
        fputs(i ? ",\n {\"rank\":" : "\n {\"rank\":", f);
        sl_json_string(f, r->rank, DIFF_ESC);
        fputs(",\"region\":", f);
        sl_json_string(f, r->region, DIFF_ESC);
        fprintf(f, ",\"source\":\"%s\",\"group_id\":",
                r->group_id >= 0 ? "likwid" : (r->quantity[0] ? "timing" : ""));
        if (r->group_id >= 0)
            fprintf(f, "%lld", (long long)r->group_id);
        else
            fputs("null", f);
        fputs(",\"group_name\":", f);
        sl_json_string(f, r->group_name, DIFF_ESC);
        fputs(",\"quantity\":", f);
        sl_json_string(f, r->quantity, DIFF_ESC);
        fprintf(f, ",\"unit\":\"%s\",\"statistic\":\"%s\"", r->unit, r->statistic);
        json_num(f, "base", r->base);
        json_num(f, "new", r->new_);
        json_num(f, "change_pct", r->change_pct);
        json_num(f, "base_min", r->base_min);
        json_num(f, "new_min", r->new_min);
        fprintf(f, ",\"verdict\":\"%s\"}", sl_verdict_name(r->verdict));
    }
    fputs("]}\n", f);
}

/* Metrics asked for that no region of either file has: said, not fatal. */
static void warn_unknown_metrics(const sl_diff *d, char *const *metrics, size_t n)
{
    for (size_t m = 0; m < n; m++) {
        size_t i = 0;
        while (i < d->n && strcmp(d->rows[i].quantity, metrics[m]))
            i++;
        if (i == d->n)
            fprintf(stderr, "scope-likwid: diff: metric '%s' is in no region compared\n",
                    metrics[m]);
    }
}

int sl_cmd_diff(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    size_t npaths = 0, nmetrics = 0;
    char **metrics = calloc((size_t)argc, sizeof *metrics);
    double threshold = 10.0;
    enum diff_format fmt = FMT_TABLE;
    int fmt_set = 0, only_positional = 0, rc = SL_EXIT_OK;
    if (!metrics)
        return SL_EXIT_FAIL;
    for (int i = 1; i < argc && rc == SL_EXIT_OK; i++) {
        const char *a = argv[i];
        if (only_positional || a[0] != '-' || !a[1]) {
            if (npaths == 2)
                rc = sl_usage_error("diff: more than two files ('%s')", a);
            else
                paths[npaths++] = a;
        } else if (!strcmp(a, "--")) {
            only_positional = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            free(metrics);
            return SL_EXIT_OK;
        } else if (!strcmp(a, "--threshold") || !strncmp(a, "--threshold=", 12)) {
            const char *v = a[11] == '=' ? a + 12 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v)
                rc = sl_usage_error("diff: --threshold needs a value");
            else if (parse_threshold(v, &threshold))
                rc = sl_usage_error("diff: bad --threshold '%s': expected a percentage >= 0 "
                                    "such as 10%% or 10", v);
        } else if (!strcmp(a, "--metric") || !strncmp(a, "--metric=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v)
                rc = sl_usage_error("diff: --metric needs a NAME");
            else
                metrics[nmetrics++] = (char *)v;
        } else if (!strcmp(a, "--csv") || !strcmp(a, "--json")) {
            enum diff_format want = a[2] == 'c' ? FMT_CSV : FMT_JSON;
            if (fmt_set && want != fmt)
                rc = sl_usage_error("diff: --csv and --json exclude each other");
            fmt = want;
            fmt_set = 1;
        } else {
            rc = sl_usage_error("diff: unknown option '%s'", a);
        }
    }
    if (rc == SL_EXIT_OK && npaths < 2)
        rc = sl_usage_error("diff: expected BASE.h5 and NEW.h5");
    if (rc != SL_EXIT_OK) {
        free(metrics);
        return rc;
    }

    sl_runset base = {0}, new_ = {0};
    sl_diff d = {0};
    int err = sl_read_result(paths[0], &base);
    if (!err)
        err = sl_read_result(paths[1], &new_);
    if (!err && (err = sl_diff_build(&base, &new_, threshold, metrics, nmetrics, &d)))
        fprintf(stderr, "scope-likwid: diff: %s\n", strerror(-err));
    if (err) {
        fprintf(stderr, "scope-likwid: diff: bad input, nothing compared\n");
        rc = SL_EXIT_FAIL;
        goto out;
    }
    size_t slower = 0;
    for (size_t i = 0; i < d.n; i++)
        slower += d.rows[i].verdict == SL_V_SLOWER;
    if (fmt == FMT_TABLE)
        print_table(stdout, &d);
    else if (fmt == FMT_CSV)
        print_csv(stdout, &d);
    else
        print_json(stdout, &d, paths[0], paths[1], threshold, slower);
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "scope-likwid: diff: cannot write the output: %s\n", strerror(errno));
        rc = SL_EXIT_FAIL;
        goto out;
    }
    warn_unknown_metrics(&d, metrics, nmetrics);
    char b[SL_NUM_BUF];
    if (slower) {
        fprintf(stderr, "scope-likwid: diff: %zu of %zu comparisons slower by more than %s%%\n",
                slower, d.n, sl_fmt_exact(threshold, b));
        rc = SL_EXIT_FAIL;
    } else {
        fprintf(stderr, "scope-likwid: diff: nothing slower by more than %s%%\n",
                sl_fmt_exact(threshold, b));
    }
out:
    sl_diff_free(&d);
    sl_runset_free(&base);
    sl_runset_free(&new_);
    free(metrics);
    return rc;
}
