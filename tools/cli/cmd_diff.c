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
    "Compares the region runtimes of two result files, rank by rank, regions\n"
    "by exact tag (LIKWID regions by tag and group id). Ranks are paired by\n"
    "origin: (mpi_rank, merged_from's file name, merged_from_group) when that\n"
    "is unique in both files, so merging merged files (which renumbers the\n"
    "groups) does not change the pairs; the other ranks the k-th of an\n"
    "mpi_rank (in group order) with the k-th; what is left by group number.\n"
    "Rows are labelled with the rank group's name (\"rank3\"; \"rank1/rank4\"\n"
    "when the paired groups' names differ, base/new).\n"
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
    static const struct option opts[] = {
        {"threshold", required_argument, NULL, 't'}, {"metric", required_argument, NULL, 'm'},
        {"csv", no_argument, NULL, 'C'},             {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
    };
    const char *paths[2] = {NULL, NULL};
    size_t nmetrics = 0;
    char **metrics = calloc((size_t)argc, sizeof *metrics);
    double threshold = 10.0;
    enum diff_format fmt = FMT_TABLE;
    int c, fmt_set = 0, rc = SL_EXIT_OK;
    if (!metrics)
        return SL_EXIT_FAIL;
    optind = 0;
    while (rc == SL_EXIT_OK && (c = sl_getopt("diff", argc, argv, ":h", opts)) != SL_OPT_END) {
        if (c == 'h') {
            fputs(usage, stdout);
            free(metrics);
            return SL_EXIT_OK;
        } else if (c == 't') {
            if (parse_threshold(optarg, &threshold))
                rc = sl_usage_error("diff", "bad --threshold '%s': expected a percentage >= 0 "
                                    "such as 10%% or 10", optarg);
        } else if (c == 'm') {
            metrics[nmetrics++] = optarg;
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
    if (rc == SL_EXIT_OK && sl_operands("diff", argc, argv, 2, 2, "BASE.h5 and NEW.h5") < 0)
        rc = SL_EXIT_USAGE;
    if (rc != SL_EXIT_OK) {
        free(metrics);
        return rc;
    }
    paths[0] = argv[optind];
    paths[1] = argv[optind + 1];

    sl_runset base = {0}, new_ = {0};
    sl_diff d = {0};
    int err = sl_read_result("diff", paths[0], &base);
    if (!err)
        err = sl_read_result("diff", paths[1], &new_);
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
        sl_diff_print_table(stdout, &d);
    else if (fmt == FMT_CSV)
        sl_diff_print_csv(stdout, &d);
    else
        sl_diff_print_json(stdout, &d, paths[0], paths[1], threshold, slower);
    if (fflush(stdout) || ferror(stdout)) {
        sl_error("diff", "stdout: cannot write: %s", strerror(errno));
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
