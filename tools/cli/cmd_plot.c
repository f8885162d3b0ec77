/* scope-likwid plot: a result file as a self-contained report: HTML with
 * inline SVG and CSS (no script, no external resource), or one SVG. */
#include "cmds.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_files.h"
#include "h5read.h"
#include "plot_buf.h"
#include "plot_report.h"
#include "show_filter.h"
#include "why.h"

#define DEFAULT_MAX_CALLS 20000

static const char usage[] =
    "usage: scope-likwid plot FILE.h5 [NEW.h5...] [-o OUT.html | -o OUT.svg]\n"
    "                         [--metric NAME]... [--max-calls N]\n"
    "\n"
    "Writes a self-contained report of a result file: one HTML file with\n"
    "inline SVG charts and inline CSS (no JavaScript, nothing loaded from the\n"
    "network). First the file's /metadata (timestamp, host, mpi_size,\n"
    "omp_num_threads, total time, working directory, user, SLURM_*) when it\n"
    "has one. With several ranks, \"All ranks\": every rank's span of recorded\n"
    "calls on one time axis, and per region min/mean/max over the ranks of a\n"
    "rank's total time with the rank of the max and imbalance = (max - mean) /\n"
    "max, and of each chosen metric over every rank's hardware threads. With a\n"
    "FLOP rate and a memory bandwidth metric (FLOPS_DP and MEM, or MEM_DP), a\n"
    "roofline view: per region the FLOP rate against operational intensity.\n"
    "Then per rank (in HTML folded behind the summary when the file has more\n"
    "than 16 ranks):\n"
    "  - a header titled with the rank's origin as show prints it (group,\n"
    "    mpi_rank, pid, host, the file and group it was merged from):\n"
    "    executable, command line, likwid_status, clock, the run's LIKWID_*\n"
    "    variables;\n"
    "  - region time per thread: the shim's total time per region and thread\n"
    "    as horizontal bars, regions costliest first;\n"
    "  - a timeline of the recorded calls: one row per thread, one box per\n"
    "    call, time in ms from the earliest start of any rank of the file\n"
    "    (every rank on the same axis), a legend of the region colours;\n"
    "  - each chosen metric per region and hardware thread as bars.\n"
    "With two or more files, a comparison comes first: per region each file's\n"
    "total time and each chosen metric's mean as bars side by side, the change\n"
    "relative to the first file beside them; then each file's report.\n"
    "\n"
    "  -o, --output OUT  where to write; OUT ending in .svg writes one standalone\n"
    "                 SVG (the charts stacked) instead of HTML (.html, .htm,\n"
    "                 .xhtml). Default: FILE's name with .h5 replaced by .html,\n"
    "                 in the current directory. An existing OUT is replaced\n"
    "                 (the report is written to a temporary file first and\n"
    "                 renamed into place: never a half report).\n"
    "  --metric NAME  a counter value to chart (repeatable: one chart each): a\n"
    "                 metric name (\"DP [MFLOP/s]\"), an event label, \"call count\"\n"
    "                 or \"runtime [s]\" (LIKWID's seconds), as show names them.\n"
    "                 Default: the first metric that is a FLOP rate or a\n"
    "                 bandwidth (\"FLOP/s\" or \"Bytes/s\" in its name), else the\n"
    "                 first whose name does not start with \"Runtime\", else\n"
    "                 \"runtime [s]\".\n"
    "  --max-calls N  draw at most N calls in the timelines of each file (the N\n"
    "                 longest; default 20000); the report says how many were\n"
    "                 drawn and left out.\n"
    "  -h, --help     this help\n"
    "\n"
    "Tags and strings that are not valid UTF-8 show their stray bytes as \\xHH.\n"
    "Prints \"wrote OUT\" on success. Exit codes: 0 written, 1 unreadable input,\n"
    "unknown metric (the message lists the file's names) or failed write, 2\n"
    "usage error.\n";

/* FILE's base name with .h5 replaced by .html (appended when absent). */
static char *default_output(const char *in)
{
    char *copy = strdup(in);
    if (!copy)
        return NULL;
    const char *base = basename(copy);
    size_t n = strlen(base);
    if (sl_ends_with(base, ".h5"))
        n -= 3;
    char *out = malloc(n + 6);
    if (out)
        snprintf(out, n + 6, "%.*s.html", (int)n, base);
    free(copy);
    return out;
}

static int fill_report(FILE *f, void *ctx)
{
    const sl_buf *b = ctx;
    fwrite(b->data, 1, b->len, f);
    return 0;
}

static int plot_files(char **paths, size_t nfiles, const char *out, const sl_show_filter *metrics,
                      sl_plot_opts *opts);

/* Every --metric names a row some region of the file has, as show checks
 * its --metric (and says what the file has). 0 or -ENOENT/-ENOMEM after
 * the message. */
static int check_metrics(const sl_runset *set, const char *path, char **metrics, size_t n)
{
    sl_show_filter flt = {.metrics = metrics, .nmetrics = n};
    sl_why msg;
    sl_why_heap(&msg);
    int rc = sl_filter_check(&flt, set, path, &msg);
    if (rc)
        sl_error("plot", "%s", msg.len ? sl_why_text(&msg) : strerror(-rc));
    sl_why_free(&msg);
    return rc;
}

int sl_cmd_plot(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"output", required_argument, NULL, 'o'},    {"metric", required_argument, NULL, 'm'},
        {"max-calls", required_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL;
    sl_plot_opts opts = {.max_rects = DEFAULT_MAX_CALLS};
    sl_show_filter metrics = {0};       /* only its metric list */
    int c, status = SL_EXIT_USAGE;
    long long n;
    optind = 0;
    while ((c = sl_getopt("plot", argc, argv, ":ho:", lopts)) != SL_OPT_END) {
        switch (c) {
        case 'h':
            fputs(usage, stdout);
            status = SL_EXIT_OK;
            goto done;
        case 'o':
            if (out) {
                sl_usage_error("plot", "-o given twice");
                goto done;
            }
            if (!*optarg) {
                sl_usage_error("plot", "-o '': expected a file name");
                goto done;
            }
            out = optarg;
            break;
        case 'm':
            if (sl_filter_add(&metrics.metrics, &metrics.nmetrics, optarg)) {
                sl_error("plot", "out of memory");
                status = SL_EXIT_FAIL;
                goto done;
            }
            break;
        case 'n':
            if (sl_parse_i64(optarg, &n) || n < 0) {
                sl_usage_error("plot", "--max-calls '%s': expected a number >= 0", optarg);
                goto done;
            }
            opts.max_rects = (size_t)n;
            break;
        default:
            goto done;
        }
    }
    int nfiles = sl_operands("plot", argc, argv, 1, argc, "FILE");
    if (nfiles < 0)
        goto done;
    if (out) {
        if (sl_ends_with(out, ".svg"))
            opts.svg = 1;
        else if (!sl_ends_with(out, ".html") && !sl_ends_with(out, ".htm") && !sl_ends_with(out, ".xhtml")) {
            sl_usage_error("plot", "-o '%s': expected a name ending in .html or .svg", out);
            goto done;
        }
    }
    status = plot_files(argv + optind, (size_t)nfiles, out, &metrics, &opts);
done:
    sl_show_filter_free(&metrics);
    return status;
}

/* Reads the files, checks the metrics in each, writes the report. */
static int plot_files(char **paths, size_t nfiles, const char *out, const sl_show_filter *metrics,
                      sl_plot_opts *opts)
{
    char *out_owned = out ? NULL : default_output(paths[0]);
    sl_runset *sets = calloc(nfiles, sizeof *sets);
    sl_plot_file *files = calloc(nfiles, sizeof *files);
    int rc = 0;
    if ((!out && !out_owned) || !sets || !files) {
        sl_error("plot", "out of memory");
        rc = -ENOMEM;
    }
    size_t nread = 0;
    while (!rc && nread < nfiles) {
        files[nread] = (sl_plot_file){paths[nread], &sets[nread]};
        rc = sl_read_result("plot", paths[nread], &sets[nread]);  /* frees what it read on failure */
        if (rc)
            break;
        nread++;
        if (metrics->nmetrics)
            rc = check_metrics(&sets[nread - 1], paths[nread - 1], metrics->metrics, metrics->nmetrics);
    }
    if (!out)
        out = out_owned;
    opts->metrics = metrics->metrics;
    opts->nmetrics = metrics->nmetrics;
    sl_buf b;
    sl_buf_init(&b);
    if (!rc) {
        rc = sl_plot_report(&b, files, nfiles, opts);
        if (rc)
            sl_error("plot", "%s", strerror(-rc));
    }
    if (!rc) {
        rc = sl_out_file_write(out, 0, fill_report, &b);
        if (rc)
            sl_error("plot", "%s: cannot write: %s", out, strerror(-rc));
        else
            printf("wrote %s\n", out);
    }
    sl_buf_free(&b);
    for (size_t i = 0; sets && i < nread; i++)
        sl_runset_free(&sets[i]);
    free(sets);
    free(files);
    free(out_owned);
    return rc ? SL_EXIT_FAIL : SL_EXIT_OK;
}
