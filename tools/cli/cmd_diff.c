/* scope-likwid diff: compares two result files region by region, for CI.
 * Exit 0 pass, 1 a regression (slower, a metric worse, something of BASE
 * missing in NEW), 2 no comparison (bad input, usage, an output not
 * written); the last stderr line says which. */
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
    "usage: scope-likwid diff BASE.h5 NEW.h5 [--threshold PCT]\n"
    "                         [--metric NAME[:higher|:lower]]... [--allow-missing]\n"
    "                         [--csv | --json] [--junit FILE] [--github]\n"
    "\n"
    "Compares the region runtimes of two result files, rank by rank, regions\n"
    "by exact tag (LIKWID regions by tag and group id): a CI gate. Ranks are\n"
    "paired by origin: (mpi_rank, merged_from's file name, merged_from_group)\n"
    "when that is unique in both files, so merging merged files (which\n"
    "renumbers the groups) does not change the pairs; the other ranks the\n"
    "k-th of an mpi_rank (in group order) with the k-th; what is left by\n"
    "group number. Rows are labelled with the rank group's name (\"rank3\";\n"
    "\"rank1/rank4\" when the paired groups' names differ, base/new).\n"
    "\n"
    "  timing rows (the shim's timing, ms per call):\n"
    "     statistic \"median\": both files kept every call's sample of the\n"
    "       region: the median per-call duration is compared; base/new min\n"
    "       give the fastest call;\n"
    "     statistic \"mean (samples capped)\": a file kept only some calls'\n"
    "       samples (SCOPE_LIKWID_MAX_CALLS): total time / calls, as for\n"
    "     statistic \"mean\": no samples: total time / calls over all threads.\n"
    "  likwid rows (when a rank has LIKWID data, s per call):\n"
    "     runtime/call, statistic \"max thread\": the slowest thread's LIKWID\n"
    "       time divided by that thread's calls;\n"
    "     counters, statistic \"events\": the region's events in base, when\n"
    "       new has the region but no events (LIKWID stopped counting);\n"
    "     each --metric NAME (a metric name, or else an event label),\n"
    "       statistic \"thread mean\": the mean over threads.\n"
    "\n"
    "  --threshold PCT  \"10%\" or \"10\": percent (\"0.1\" is 0.1 %); a change\n"
    "                   beyond it is slower/faster (higher/lower), else same.\n"
    "                   Default 10%.\n"
    "  --metric NAME[:higher|:lower]\n"
    "                   also compare this LIKWID metric (repeatable); with\n"
    "                   :higher (higher is better) or :lower, a change beyond\n"
    "                   the threshold the other way fails; without, it is\n"
    "                   only reported. A NAME in neither file is an error.\n"
    "  --allow-missing  what BASE has and NEW lacks is reported, not a failure\n"
    "  --csv            CSV: rank,region,source,group_id,group_name,quantity,\n"
    "                   unit,statistic,base,new,change_pct,base_min,new_min,\n"
    "                   verdict,gate (empty: no value)\n"
    "  --json           {\"base\",\"new\",\"threshold_pct\",\"allow_missing\",\n"
    "                   \"slower\",\"worse\",\"missing\",\"failed\",\"warnings\",\n"
    "                   \"rows\":[{the same fields}]}; no value: null\n"
    "  --junit FILE     also write JUnit XML: one testcase per row, a failure\n"
    "                   per failing row (Jenkins, GitLab's reports:junit)\n"
    "  --github         also print GitHub Actions workflow commands (::error\n"
    "                   per failing row, ::warning per warning) after the\n"
    "                   table, and append a Markdown table to the file\n"
    "                   $GITHUB_STEP_SUMMARY names, when set (not with --csv\n"
    "                   or --json)\n"
    "  -h, --help       this help\n"
    "\n"
    "Verdicts: slower, faster, same, higher, lower, only in base, only in new,\n"
    "no data (present in both, nothing to compare). Gate: fail (a time slower,\n"
    "a metric worse, or missing in new: a region, rank, LIKWID group, counter\n"
    "or metric value of BASE that NEW lacks), pass, or empty (reported only:\n"
    "only in new, a metric without direction, what --allow-missing lets pass).\n"
    "Warnings (stderr): BASE and NEW from other hosts or executables; means\n"
    "compared because samples were capped.\n"
    "Exit codes: 0 pass; 1 a regression (some row fails); 2 no comparison:\n"
    "an input unreadable, a usage error, a --metric in neither file, an\n"
    "output not written. The last line on stderr says which.\n";

enum diff_format { FMT_TABLE, FMT_CSV, FMT_JSON };

/* diff's exit codes: a regression is not a broken pipeline. A usage error
 * is a comparison not made too (SL_EXIT_USAGE, the same 2). */
enum { DIFF_PASS = SL_EXIT_OK, DIFF_REGRESSION = SL_EXIT_FAIL, DIFF_NOT_COMPARED = SL_EXIT_USAGE };

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

/* "NAME:higher" / "NAME:lower": the direction cut off (arg is modified);
 * any other NAME (colons included) is compared without direction. */
static sl_diff_metric parse_metric(char *arg)
{
    sl_diff_metric m = {arg, SL_BETTER_NONE};
    char *colon = strrchr(arg, ':');
    if (colon && colon > arg && !strcmp(colon, ":higher"))
        m.better = SL_BETTER_HIGHER;
    else if (colon && colon > arg && !strcmp(colon, ":lower"))
        m.better = SL_BETTER_LOWER;
    if (m.better != SL_BETTER_NONE)
        *colon = '\0';
    return m;
}

/* Metrics asked for that some file has but no compared row shows (only in
 * a region of one file): said, not fatal. */
static void warn_uncompared_metrics(const sl_diff *d, const sl_diff_metric *metrics, size_t n)
{
    for (size_t m = 0; m < n; m++) {
        size_t i = 0;
        while (i < d->n && strcmp(d->rows[i].quantity, metrics[m].name))
            i++;
        if (i == d->n)
            fprintf(stderr, "scope-likwid: diff: warning: metric '%s' is in no region compared\n",
                    metrics[m].name);
    }
}

/* The last stderr line's text for a comparison made. */
static void verdict_text(const sl_diff *d, double threshold, char *buf, size_t len)
{
    char t[SL_NUM_BUF];
    const char *pct = sl_fmt_exact(threshold, t);
    size_t allowed = 0;
    for (size_t i = 0; i < d->n; i++)
        allowed += d->rows[i].missing && d->rows[i].gate != SL_GATE_FAIL;
    if (!d->failed) {
        int at = snprintf(buf, len, "pass: %zu comparison%s, none slower or worse by more than %s%%",
                          d->n, d->n == 1 ? "" : "s", pct);
        if (at > 0 && (size_t)at < len)
            snprintf(buf + at, len - (size_t)at, allowed ? ", %zu missing in new (allowed)"
                                                         : ", none missing in new", allowed);
        return;
    }
    snprintf(buf, len,
             "regression: %zu of %zu comparisons failed (threshold %s%%): slower %zu, metric "
             "worse %zu, missing in new %zu",
             d->failed, d->n, pct, d->slower, d->worse, d->missing);
}

typedef struct diff_out {
    const sl_diff *d;
    const char *base, *new_, *verdict, *error;
} diff_out;

static int fill_junit(FILE *f, void *ctx)
{
    const diff_out *o = ctx;
    sl_diff_print_junit(f, o->d, o->base, o->new_, o->verdict, o->error);
    return 0;
}

/* The CI outputs beside the table: the JUnit file, GitHub's step summary
 * (its workflow commands go to stdout). DIFF_PASS, or DIFF_NOT_COMPARED
 * after a line on stderr naming the file not written. */
static int write_ci(const diff_out *o, const char *junit, int github)
{
    int err;
    if (junit && (err = sl_out_file_write(junit, 0, fill_junit, (void *)o))) {
        sl_error("diff", "%s: cannot write: %s", junit, strerror(-err));
        return DIFF_NOT_COMPARED;
    }
    if (!github)
        return DIFF_PASS;
    sl_diff_print_github(stdout, o->d, o->error);
    const char *summary = getenv("GITHUB_STEP_SUMMARY");
    if (!summary || !*summary)
        return DIFF_PASS;
    FILE *f = fopen(summary, "a");
    if (f) {
        sl_diff_print_markdown(f, o->d, o->base, o->new_, o->verdict, o->error);
        if (ferror(f) | fclose(f))
            f = NULL;
    }
    if (!f) {
        sl_error("diff", "%s (GITHUB_STEP_SUMMARY): cannot write: %s", summary, strerror(errno));
        return DIFF_NOT_COMPARED;
    }
    return DIFF_PASS;
}

/* Nothing compared: the CI outputs say why too, then the last line. */
static int no_comparison(diff_out *o, const char *junit, int github, const char *why)
{
    static const sl_diff empty;
    o->d = &empty;
    o->error = why;
    o->verdict = why;
    write_ci(o, junit, github);
    fflush(stdout);
    fprintf(stderr, "scope-likwid: diff: error: %s\n", why);
    return DIFF_NOT_COMPARED;
}

int sl_cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        {"threshold", required_argument, NULL, 't'}, {"metric", required_argument, NULL, 'm'},
        {"csv", no_argument, NULL, 'C'},             {"json", no_argument, NULL, 'J'},
        {"allow-missing", no_argument, NULL, 'A'},   {"junit", required_argument, NULL, 'U'},
        {"github", no_argument, NULL, 'G'},          {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    size_t nmetrics = 0;
    sl_diff_metric *metrics = calloc((size_t)argc, sizeof *metrics);
    sl_diff_opts o = {.threshold = 10.0};
    const char *junit = NULL;
    enum diff_format fmt = FMT_TABLE;
    int c, fmt_set = 0, github = 0, rc = SL_EXIT_OK;
    if (!metrics)
        return DIFF_NOT_COMPARED;
    optind = 0;
    while (rc == SL_EXIT_OK && (c = sl_getopt("diff", argc, argv, ":h", opts)) != SL_OPT_END) {
        if (c == 'h') {
            fputs(usage, stdout);
            free(metrics);
            return SL_EXIT_OK;
        } else if (c == 't') {
            if (parse_threshold(optarg, &o.threshold))
                rc = sl_usage_error("diff", "bad --threshold '%s': expected a percentage >= 0 "
                                    "such as 10%% or 10", optarg);
        } else if (c == 'm') {
            metrics[nmetrics++] = parse_metric(optarg);
        } else if (c == 'A') {
            o.allow_missing = 1;
        } else if (c == 'U') {
            junit = optarg;
        } else if (c == 'G') {
            github = 1;
        } else if (c == 'C' || c == 'J') {
            enum diff_format want = c == 'C' ? FMT_CSV : FMT_JSON;
            if (fmt_set && want != fmt)
                rc = sl_usage_error("diff", "--csv and --json exclude each other");
            fmt = want;
            fmt_set = 1;
        } else {
            rc = SL_EXIT_USAGE;
        }
    }
    if (rc == SL_EXIT_OK && github && fmt != FMT_TABLE)
        rc = sl_usage_error("diff", "--github prints workflow commands on stdout: not with "
                            "--csv or --json");
    if (rc == SL_EXIT_OK && sl_operands("diff", argc, argv, 2, 2, "BASE.h5 and NEW.h5") < 0)
        rc = SL_EXIT_USAGE;
    if (rc != SL_EXIT_OK) {
        free(metrics);
        return rc;
    }
    o.metrics = metrics;
    o.nmetrics = nmetrics;
    diff_out out = {.base = argv[optind], .new_ = argv[optind + 1]};

    sl_runset base = {0}, new_ = {0};
    sl_diff d = {0};
    char why[600];
    int err = sl_read_result("diff", out.base, &base);
    if (!err)
        err = sl_read_result("diff", out.new_, &new_);
    if (err) {
        rc = no_comparison(&out, junit, github, "bad input, nothing compared");
        goto done;
    }
    for (size_t m = 0; m < nmetrics; m++) {
        int in_base = sl_diff_has_metric(&base, metrics[m].name);
        int in_new = in_base ? 0 : sl_diff_has_metric(&new_, metrics[m].name);
        if (in_base < 0 || in_new < 0) {
            err = -ENOMEM;
            break;
        }
        if (!in_base && !in_new) {
            snprintf(why, sizeof why, "metric '%s' is in neither file, nothing compared",
                     metrics[m].name);
            rc = no_comparison(&out, junit, github, why);
            goto done;
        }
    }
    if (err || (err = sl_diff_build(&base, &new_, &o, &d))) {
        snprintf(why, sizeof why, "%s, nothing compared", strerror(-err));
        rc = no_comparison(&out, junit, github, why);
        goto done;
    }
    char verdict[400];
    verdict_text(&d, o.threshold, verdict, sizeof verdict);
    out.d = &d;
    out.verdict = verdict;
    if (fmt == FMT_TABLE)
        sl_diff_print_table(stdout, &d);
    else if (fmt == FMT_CSV)
        sl_diff_print_csv(stdout, &d);
    else
        sl_diff_print_json(stdout, &d, out.base, out.new_, &o);
    rc = write_ci(&out, junit, github);
    if (fflush(stdout) || ferror(stdout)) {
        sl_error("diff", "stdout: cannot write: %s", strerror(errno));
        rc = DIFF_NOT_COMPARED;
    }
    for (size_t i = 0; i < d.nwarnings; i++)
        fprintf(stderr, "scope-likwid: diff: warning: %s\n", d.warnings[i]);
    warn_uncompared_metrics(&d, metrics, nmetrics);
    if (rc != DIFF_PASS)
        fprintf(stderr, "scope-likwid: diff: error: an output was not written (%s)\n", verdict);
    else if (d.failed)
        rc = DIFF_REGRESSION;
    if (rc == DIFF_PASS || rc == DIFF_REGRESSION)
        fprintf(stderr, "scope-likwid: diff: %s\n", verdict);
done:
    sl_diff_free(&d);
    sl_runset_free(&base);
    sl_runset_free(&new_);
    free(metrics);
    return rc;
}
