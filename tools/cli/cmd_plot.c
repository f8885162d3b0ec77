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

#define DEFAULT_MAX_CALLS 20000

static const char usage[] =
    "usage: scope-likwid plot FILE.h5 [-o OUT.html | -o OUT.svg] [--metric NAME]\n"
    "                         [--max-calls N]\n"
    "\n"
    "Writes a self-contained report of a result file: one HTML file with\n"
    "inline SVG charts and inline CSS (no JavaScript, nothing loaded from the\n"
    "network). First the file's /metadata (timestamp, host, mpi_size,\n"
    "omp_num_threads, total time, working directory, user, SLURM_*) when it\n"
    "has one; then per rank:\n"
    "  - a header titled with the rank's origin as show prints it (group,\n"
    "    mpi_rank, pid, host, the file and group it was merged from):\n"
    "    executable, command line, likwid_status, clock, the run's LIKWID_*\n"
    "    variables;\n"
    "  - region time per thread: the shim's total time per region and thread\n"
    "    as horizontal bars, regions costliest first;\n"
    "  - a timeline of the recorded calls: one row per thread, one box per\n"
    "    call, time in ms from the rank's earliest start, a legend of the\n"
    "    region colours;\n"
    "  - one counter value per region and hardware thread as bars.\n"
    "\n"
    "  -o, --output OUT  where to write; OUT ending in .svg writes one standalone\n"
    "                 SVG (the charts stacked) instead of HTML (.html, .htm,\n"
    "                 .xhtml). Default: FILE's name with .h5 replaced by .html,\n"
    "                 in the current directory. An existing OUT is replaced\n"
    "                 (the report is written to a temporary file first and\n"
    "                 renamed into place: never a half report).\n"
    "  --metric NAME  the counter value to chart: a metric name (\"DP [MFLOP/s]\"),\n"
    "                 an event label, \"runtime\" (LIKWID's seconds) or \"call count\".\n"
    "                 Default: the first metric of the first region, or \"runtime\"\n"
    "                 when no region has metrics.\n"
    "  --max-calls N  draw at most N calls in the timelines of the whole report\n"
    "                 (the N longest; default 20000); the report says how many\n"
    "                 were drawn and left out.\n"
    "  -h, --help     this help\n"
    "\n"
    "Tags and strings that are not valid UTF-8 show their stray bytes as \\xHH.\n"
    "Prints \"wrote OUT\" on success. Exit codes: 0 written, 1 unreadable input,\n"
    "unknown metric or failed write, 2 usage error.\n";

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

int sl_cmd_plot(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"output", required_argument, NULL, 'o'},    {"metric", required_argument, NULL, 'm'},
        {"max-calls", required_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *path = NULL, *out = NULL;
    sl_plot_opts opts = {.max_rects = DEFAULT_MAX_CALLS};
    int c;
    long long n;
    optind = 0;
    while ((c = sl_getopt("plot", argc, argv, ":ho:", lopts)) != SL_OPT_END) {
        switch (c) {
        case 'h':
            fputs(usage, stdout);
            return SL_EXIT_OK;
        case 'o':
            if (out)
                return sl_usage_error("plot", "-o given twice");
            if (!*optarg)
                return sl_usage_error("plot", "-o '': expected a file name");
            out = optarg;
            break;
        case 'm':
            if (opts.metric)
                return sl_usage_error("plot", "--metric given twice");
            opts.metric = optarg;
            break;
        case 'n':
            if (sl_parse_i64(optarg, &n) || n < 0)
                return sl_usage_error("plot", "--max-calls '%s': expected a number >= 0", optarg);
            opts.max_rects = (size_t)n;
            break;
        default:
            return SL_EXIT_USAGE;
        }
    }
    if (sl_operands("plot", argc, argv, 1, 1, "FILE") < 0)
        return SL_EXIT_USAGE;
    path = argv[optind];
    if (out) {
        if (sl_ends_with(out, ".svg"))
            opts.svg = 1;
        else if (!sl_ends_with(out, ".html") && !sl_ends_with(out, ".htm") && !sl_ends_with(out, ".xhtml"))
            return sl_usage_error("plot", "-o '%s': expected a name ending in .html or .svg", out);
    }
    char *out_owned = out ? NULL : default_output(path);
    if (!out && !out_owned) {
        sl_error("plot", "out of memory");
        return SL_EXIT_FAIL;
    }
    if (!out)
        out = out_owned;
    opts.title = path;

    sl_runset set = {0};
    int rc = sl_read_result("plot", path, &set);
    if (rc < 0) {
        free(out_owned);
        return SL_EXIT_FAIL;
    }
    sl_buf b;
    sl_buf_init(&b);
    rc = sl_plot_report(&b, &set, &opts);
    if (!rc) {
        rc = sl_out_file_write(out, 0, fill_report, &b);
        if (rc)
            sl_error("plot", "%s: cannot write: %s", out, strerror(-rc));
        else
            printf("wrote %s\n", out);
    } else if (rc != -ENOENT) {
        sl_error("plot", "%s: %s", path, strerror(-rc));
    }
    sl_buf_free(&b);
    sl_runset_free(&set);
    free(out_owned);
    return rc ? SL_EXIT_FAIL : SL_EXIT_OK;
}
