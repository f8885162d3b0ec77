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
    "network), per rank:\n"
    "  - a header: rank, pid, host, executable, command line, likwid_status,\n"
    "    clock, the run's LIKWID_* variables;\n"
    "  - region time per thread: the shim's total time per region and thread\n"
    "    as horizontal bars, regions costliest first;\n"
    "  - a timeline of the recorded calls: one row per thread, one box per\n"
    "    call, time in ms from the rank's earliest start, a legend of the\n"
    "    region colours;\n"
    "  - one counter value per region and hardware thread as bars.\n"
    "\n"
    "  -o OUT         where to write; OUT ending in .svg writes one standalone\n"
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

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcasecmp(s + n - k, suffix);
}

/* FILE's base name with .h5 replaced by .html (appended when absent). */
static char *default_output(const char *in)
{
    char *copy = strdup(in);
    if (!copy)
        return NULL;
    const char *base = basename(copy);
    size_t n = strlen(base);
    if (ends_with(base, ".h5"))
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
    const char *path = NULL, *out = NULL;
    sl_plot_opts opts = {.max_rects = DEFAULT_MAX_CALLS};
    int only_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int k = sl_arg_common("plot", usage, a, &only_positional, &path);
        if (k == SL_ARG_TAKEN)
            continue;
        if (k != SL_ARG_OPTION)
            return k;
        if (!strcmp(a, "-o") || !strcmp(a, "--metric") || !strcmp(a, "--max-calls")) {
            if (i + 1 >= argc)
                return sl_usage_error("plot: %s needs an argument", a);
            const char *v = argv[++i];
            if (a[1] == 'o') {
                if (out)
                    return sl_usage_error("plot: -o given twice");
                if (!*v)
                    return sl_usage_error("plot: -o '': expected a file name");
                out = v;
            } else if (a[3] == 'e') {
                if (opts.metric)
                    return sl_usage_error("plot: --metric given twice");
                opts.metric = v;
            } else {
                long long n;
                if (sl_parse_i64(v, &n) || n < 0)
                    return sl_usage_error("plot: --max-calls '%s': expected a number >= 0", v);
                opts.max_rects = (size_t)n;
            }
        } else {
            return sl_usage_error("plot: unknown option '%s'", a);
        }
    }
    if (!path)
        return sl_usage_error("plot: missing FILE");
    if (out) {
        if (ends_with(out, ".svg"))
            opts.svg = 1;
        else if (!ends_with(out, ".html") && !ends_with(out, ".htm") && !ends_with(out, ".xhtml"))
            return sl_usage_error("plot: -o '%s': expected a name ending in .html or .svg", out);
    }
    char *out_owned = out ? NULL : default_output(path);
    if (!out && !out_owned) {
        fputs("scope-likwid: plot: out of memory\n", stderr);
        return SL_EXIT_FAIL;
    }
    if (!out)
        out = out_owned;
    opts.title = path;

    sl_runset set = {0};
    int rc = sl_read_result(path, &set);
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
            fprintf(stderr, "scope-likwid: plot: cannot write %s: %s\n", out, strerror(-rc));
        else
            printf("wrote %s\n", out);
    } else if (rc != -ENOENT) {
        fprintf(stderr, "scope-likwid: plot %s: %s\n", path, strerror(-rc));
    }
    sl_buf_free(&b);
    sl_runset_free(&set);
    free(out_owned);
    return rc ? SL_EXIT_FAIL : SL_EXIT_OK;
}
