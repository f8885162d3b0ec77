/* scope-likwid export: a result file as one flat table (CSV or JSON) for
 * pandas, R, spreadsheets. The rows are built in export_rows.c; this file
 * parses the options and writes the output (stdout, or a file replaced
 * atomically). */
#include "cmds.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_args.h"
#include "cli_files.h"
#include "export_rows.h"
#include "h5read.h"

static const char usage[] =
    "usage: scope-likwid export FILE.h5 [--format csv|json | --csv | --json] [-o OUT]\n"
    "\n"
    "Writes every value of a result file as one flat table: one row per\n"
    "(rank, LIKWID region, event group, thread), plus one row per timing\n"
    "region that has no LIKWID data (so a run without counters exports its\n"
    "timing). Columns, always in this order:\n"
    "  rank, mpi_rank, rank_group, pid, merged_from, merged_from_group,\n"
    "  hostname, tag, region, group_id, group_name, source,\n"
    "  thread_index, cpu, call_count, time_s,\n"
    "  event:LABEL ...   one per event label in the file,\n"
    "  metric:NAME ...   one per metric name in the file,\n"
    "  timing_threads, timing_calls, timing_total_ns, timing_min_ns,\n"
    "  timing_max_ns, timing_dropped_calls\n"
    "rank_group is the rank's group name (rank<R>), merged_from and\n"
    "merged_from_group where merge took it from (input file, group there;\n"
    "empty unless merged): with mpi_rank and pid they say where each row's\n"
    "run came from.\n"
    "region is the HDF5 group name under rank<R>/likwid/regions (for a\n"
    "timing-only row: under rank<R>/timing/regions); tag is the tag as\n"
    "displayed (stray bytes as \\xHH); thread_index is the position on the\n"
    "file's thread axis, cpu the hardware thread. Event and metric columns\n"
    "are the union over all regions, in order of first appearance with the\n"
    "regions sorted by group id (then rank, then file order); a metric name\n"
    "given twice in one region gets \"#INDEX\" appended. A cell is empty (JSON\n"
    "null) where a region has no such value. The timing columns describe the\n"
    "shim's timing region with the same tag, over all its threads (threads:\n"
    "how many OS threads; calls and total_ns summed; min_ns and max_ns over\n"
    "the threads that completed a call): OS thread ids cannot be matched to\n"
    "LIKWID's CPUs, so they are the same on every row of a region and must\n"
    "not be summed over rows. Rows: ranks in order; per rank the LIKWID\n"
    "regions by group id, then file order, threads in order; then the\n"
    "timing-only regions in file order (group_id ... time_s empty).\n"
    "\n"
    "  --format csv   RFC 4180 quoting, a header row, LF line ends; integers\n"
    "                 as integers, other numbers in the shortest form that\n"
    "                 reads back as the same double; nan, inf, -inf as such\n"
    "  --format json  an array of objects with the column names as keys, in\n"
    "                 column order; nan, inf and missing values are null\n"
    "  --csv, --json  the same as --format csv, --format json\n"
    "                 (without a format: from OUT's extension .csv/.json;\n"
    "                 any other extension is a usage error)\n"
    "  -o, --output OUT  write to OUT instead of stdout (\"-\": stdout). OUT is\n"
    "                 written to a temporary file in its directory and renamed\n"
    "                 over OUT: an existing OUT is replaced (never the input),\n"
    "                 a failed export leaves OUT as it was.\n"
    "  -h, --help     this help\n"
    "\n"
    "Exit codes: 0 ok, 1 unreadable input or failed write, 2 usage error.\n";

/* OUT names the input file (a hard link or the same path). */
static int same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

struct export_ctx {
    const sl_runset *set;
    enum sl_export_format fmt;
};

static int fill_export(FILE *f, void *ctx)
{
    const struct export_ctx *x = ctx;
    return sl_export_write(f, x->set, x->fmt);
}

int sl_cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
        {"csv", no_argument, NULL, 'C'},          {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    const char *path = NULL, *out = NULL, *format = NULL;
    int c;
    optind = 0;
    while ((c = sl_getopt("export", argc, argv, ":ho:", opts)) != SL_OPT_END) {
        if (c == 'h') {
            fputs(usage, stdout);
            return SL_EXIT_OK;
        } else if (c == 'f' || c == 'C' || c == 'J') {
            /* --csv and --json as show and diff spell them */
            const char *want = c == 'f' ? optarg : c == 'C' ? "csv" : "json";
            if (format && strcmp(format, want))
                return sl_usage_error("export", "two formats given ('%s' and '%s')", format, want);
            format = want;
        } else if (c == 'o') {
            out = optarg;
        } else {
            return SL_EXIT_USAGE;
        }
    }
    if (sl_operands("export", argc, argv, 1, 1, "FILE") < 0)
        return SL_EXIT_USAGE;
    path = argv[optind];
    if (out && !*out)
        return sl_usage_error("export", "-o needs a file name");
    if (out && !strcmp(out, "-"))
        out = NULL;
    if (!format && out && (sl_ends_with(out, ".csv") || sl_ends_with(out, ".json")))
        format = sl_ends_with(out, ".csv") ? "csv" : "json";
    if (!format && out)
        return sl_usage_error("export", "%s: cannot tell the format from the extension "
                              "(.csv or .json): give --format csv|json", out);
    if (!format)
        return sl_usage_error("export", "missing --format csv|json");
    if (strcmp(format, "csv") && strcmp(format, "json"))
        return sl_usage_error("export", "--format '%s': expected csv or json", format);
    enum sl_export_format fmt = format[0] == 'c' ? SL_EXPORT_CSV : SL_EXPORT_JSON;

    sl_runset set = {0};
    int rc = sl_read_result("export", path, &set);
    if (rc < 0)
        return SL_EXIT_FAIL;
    if (out && same_file(out, path)) {
        sl_error("export", "%s: is the input file: expected another file name for -o", out);
        sl_runset_free(&set);
        return SL_EXIT_FAIL;
    }
    if (out) {
        rc = sl_out_file_write(out, 1, fill_export, &(struct export_ctx){&set, fmt});
    } else {
        rc = sl_export_write(stdout, &set, fmt);
        if (!rc && (fflush(stdout) || ferror(stdout)))
            rc = -EIO;
    }
    sl_runset_free(&set);
    if (rc < 0) {
        sl_error("export", "%s: cannot write: %s", out ? out : "stdout", strerror(-rc));
        return SL_EXIT_FAIL;
    }
    if (out)
        printf("wrote %s\n", out);
    return SL_EXIT_OK;
}
