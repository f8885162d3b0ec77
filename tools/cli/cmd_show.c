/* scope-likwid show: reads the options, then prints each rank by its
 * renderer (show.h). */
#include "cmds.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_files.h"
#include "csv_json.h"
#include "h5read.h"
#include "run_info.h"
#include "schema.h"
#include "show.h"
#include "show_filter.h"
#include "show_view.h"
#include "summary.h"

/* show of a file of this many ranks or more, without filters, leads with
 * the summary: beyond it the per-rank tables no longer fit a screen or two
 * and the question is "which rank is off", not one rank's numbers. */
#define SL_SUMMARY_FIRST 8
#define SL_SUMMARY_FIRST_TEXT "8"

static const char usage[] =
    "usage: scope-likwid show FILE.h5 [--csv | --json] [--rank R[,R...]] [--region PATTERN]\n"
    "                         [--group G] [--metric NAME] [--threads sum|mean|max|all]\n"
    "       scope-likwid show --summary [--csv] [--rank R] [--region PATTERN] [--group G]\n"
    "                         [--metric NAME] FILE.h5...\n"
    "\n"
    "Prints a scope-likwid result file. Per rank and LIKWID event group a\n"
    "table like likwid-perfctr's: one column per region (costliest first) and\n"
    "thread (\"tag@cpuN\" when the region ran on several CPUs), rows call count,\n"
    "runtime, events and metrics (\"-\": no value). Then the shim's timing per\n"
    "region: calls, total, mean, min, max, and problems counted at close.\n"
    "Each rank's title says where it came from: \"Rank N (group rankN,\n"
    "mpi_rank M, pid P, host H, from FILE:GROUP, EXECUTABLE)\" (from: the\n"
    "input and group a merged rank was first merged from). When the file has\n"
    "/metadata, a first line says when, where and how big the run was:\n"
    "\"Run (timestamp, host, mpi_size, omp_num_threads, total time, working\n"
    "directory, user, SLURM_JOB_ID)\", the fields the file knows.\n"
    "\n"
    "Filters (the same for the table, --csv and --json; repeat an option to\n"
    "give several values, any of which may match):\n"
    "  --rank R     only these ranks (also a comma list: --rank 0,2)\n"
    "  --region PATTERN  only regions whose tag (as displayed) matches the\n"
    "               shell glob PATTERN (fnmatch: * ? [...]); LIKWID and timing\n"
    "  --group G    only LIKWID regions of event group G (its id or its name);\n"
    "               the timing table has no groups and is not filtered by it\n"
    "  --metric NAME  only this row of the LIKWID tables: an event label, a\n"
    "               metric name, \"call count\" or \"runtime [s]\"\n"
    "  --threads MODE  all (default): one column per thread; sum, mean, max:\n"
    "               one column per region (\"tag [sum]\", CSV thread = the mode,\n"
    "               cpu empty; JSON: thread_aggregate, value arrays of one\n"
    "               element, cpus = the CPUs aggregated). Call count, runtime\n"
    "               and events are summed, averaged or maxed over threads;\n"
    "               metrics likewise for mean and max; for sum, rates, energies\n"
    "               and data volumes (units \"/s\", J, W, Bytes) are summed and\n"
    "               the others (times, clocks, CPI, ratios) have no value\n"
    "               (\"-\", a note under the table).\n"
    "               Threads without a value (nan) are left out. The timing\n"
    "               table is per region already and stays as it is.\n"
    "  --summary    one row per region over every rank and thread of the\n"
    "               FILEs: ranks, threads, calls, min/mean/max of a rank's\n"
    "               time in the region (seconds, summed over its threads),\n"
    "               imbalance = (max - mean) / max x 100; then per LIKWID group\n"
    "               each region's metrics over HWThreads: min, mean, max, and\n"
    "               sum where it means something (as for --threads sum).\n"
    "               A table, or --csv. Without filters and options, show of a\n"
    "               file of " SL_SUMMARY_FIRST_TEXT " ranks or more prints the summary first.\n"
    "A value that matches nothing in the file (no such rank, no region\n"
    "matching, no such group, event or metric) is an error (exit 1) whose\n"
    "one-line message lists what the file has.\n"
    "\n";
/* the output formats (a second string: C99 compilers need only 4095 bytes) */
static const char usage_formats[] =
    "  --csv    one CSV table (RFC 4180), columns\n"
    "           rank,section,group_id,group_name,tag,thread,cpu,row,value\n"
    "           section \"run\": the rank's attributes (row = name): rank_group\n"
    "           (its group name), mpi_rank, pid, hostname, cpu_model,\n"
    "           likwid_version, kernel_release, clock_source, tsc_hz (empty\n"
    "           when unknown), merged_from, merged_from_group (empty unless\n"
    "           merged), executable, ...;\n"
    "           then \"metadata NAME\" for each field the file's /metadata\n"
    "           knows (timestamp, hostname, mpi_size, omp_num_threads,\n"
    "           total_cores, start_time_ns, finalize_time_ns, total_time_ns,\n"
    "           working_directory, user, SLURM_*), on every rank;\n"
    "           section \"likwid\": one line per region, thread (index on the\n"
    "           file's thread axis), row (\"call count\", \"runtime [s]\", each\n"
    "           event label, each metric); cpu = the CPU of that thread;\n"
    "           section \"timing\": per region, thread empty: threads, calls,\n"
    "           total_ns, mean_ns, min_ns, max_ns, dropped_calls,\n"
    "           open_at_close, unmatched_stops, nested_starts; then per\n"
    "           thread (thread = OS thread id): calls, total_ns, min_ns, max_ns.\n"
    "           Numbers are exact (shortest form that reads back the same);\n"
    "           nan, inf, -inf as such; empty value: no value.\n"
    "  --json   one JSON document: {\"file\", \"metadata\": null (no /metadata)\n"
    "           or {the fields above, null when unknown}, \"ranks\": [{rank,\n"
    "           rank_group, mpi_rank, pid, hostname, cpu_model,\n"
    "           likwid_version, kernel_release, clock_source, tsc_hz (null\n"
    "           when unknown), merged_from, merged_from_group (null unless\n"
    "           merged), executable,\n"
    "           command_line, likwid_status, likwid_env,\n"
    "           \"likwid\": null or {source, groups: [{group_id, group_name,\n"
    "           regions: [{tag, group_id, group_name, source, cpus, call_counts,\n"
    "           times, event_labels, events (E x T), metric_names, metrics}]}]},\n"
    "           \"timing\": {clock, origin_unix_ns, regions: [{tag, threads,\n"
    "           calls, total_ns, mean_ns, min_ns, max_ns, dropped_calls,\n"
    "           open_at_close, unmatched_stops, nested_starts, per_thread:\n"
    "           {threads, call_counts, total_ns, min_ns, max_ns}}]}}]}.\n"
    "           nan and inf are written as null; a missing value as null.\n"
    "  -h, --help  this help\n"
    "\n"
    "For one row per (rank, region, group, thread) with every value, see\n"
    "'scope-likwid export'. Tags that are not valid UTF-8 show their stray\n"
    "bytes as \\xHH.\n"
    "Exit codes: 0 ok, 1 unreadable or not a result file, or a filter value\n"
    "that matches nothing; 2 usage error (unknown option, missing value, a\n"
    "rank that is not an integer >= 0, an unknown --threads mode).\n";

/* The filter options; 0, or the exit code after a usage error. */
static int parse_filter(int c, const char *v, sl_show_filter *flt)
{
    int rc = 0;
    switch (c) {
    case 'r':
        rc = sl_filter_add_ranks(flt, v);
        if (rc == -EINVAL)
            return sl_usage_error("show", "--rank '%s': expected ranks (integers >= 0, comma list)", v);
        break;
    case 'R':
        rc = sl_filter_add(&flt->regions, &flt->nregions, v);
        break;
    case 'g':
        rc = sl_filter_add(&flt->groups, &flt->ngroups, v);
        break;
    case 'm':
        rc = sl_filter_add(&flt->metrics, &flt->nmetrics, v);
        break;
    default:
        if (sl_threads_parse(v, &flt->threads))
            return sl_usage_error("show", "--threads '%s': expected sum, mean, max or all", v);
    }
    if (rc)
        sl_error("show", "%s", strerror(-rc));
    return rc ? SL_EXIT_FAIL : 0;
}

static int parse_args(int argc, char **argv, sl_show_format *fmt, sl_show_filter *flt,
                      int *summary, int *npaths)
{
    static const struct option opts[] = {
        {"csv", no_argument, NULL, 'C'},      {"json", no_argument, NULL, 'J'},
        {"rank", required_argument, NULL, 'r'}, {"region", required_argument, NULL, 'R'},
        {"group", required_argument, NULL, 'g'}, {"metric", required_argument, NULL, 'm'},
        {"threads", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
        {"summary", no_argument, NULL, 'S'},    {NULL, 0, NULL, 0},
    };
    int c, fmt_set = 0;
    optind = 0;
    while ((c = sl_getopt("show", argc, argv, ":h", opts)) != SL_OPT_END) {
        if (c == SL_OPT_BAD)
            return SL_EXIT_USAGE;
        if (c == 'h') {
            fputs(usage, stdout);
            fputs(usage_formats, stdout);
            return SL_EXIT_OK;
        }
        if (c == 'C' || c == 'J') {
            sl_show_format want = c == 'C' ? SL_SHOW_CSV : SL_SHOW_JSON;
            if (fmt_set && want != *fmt)
                return sl_usage_error("show", "--csv and --json exclude each other");
            *fmt = want;
            fmt_set = 1;
            continue;
        }
        if (c == 'S') {
            *summary = 1;
            continue;
        }
        int rc = parse_filter(c, optarg, flt);
        if (rc)
            return rc;
    }
    if (*summary && *fmt == SL_SHOW_JSON)
        return sl_usage_error("show", "--summary is a table or --csv, not --json");
    if (*summary && flt->threads != SL_THREADS_ALL)
        return sl_usage_error("show", "--summary and --threads exclude each other");
    if (!*summary && argc - optind > 1)
        return sl_usage_error("show", "%d files: expected one FILE (several: --summary)",
                              argc - optind);
    *npaths = sl_operands("show", argc, argv, 1, *summary ? argc : 1, "FILE");
    if (*npaths < 0)
        return SL_EXIT_USAGE;
    return -1;
}

static int show_run(FILE *f, sl_show_format fmt, size_t i, const sl_run *run,
                    const sl_show_filter *flt, const sl_infos *meta)
{
    sl_show_view v;
    int rc = sl_show_view_build(flt, run, &v);
    if (rc == 0 && fmt == SL_SHOW_TABLE) {
        if (i)
            fputc('\n', f);
        rc = sl_show_run_table(f, run, flt, &v);
    } else if (rc == 0 && fmt == SL_SHOW_CSV) {
        rc = sl_show_run_csv(f, run, flt, &v, meta);
    } else if (rc == 0) {
        fputs(i ? ",\n" : "\n", f);
        rc = sl_show_run_json(f, run, flt, &v);
    }
    sl_show_view_free(&v);
    return rc;
}

/* The file's /metadata before the ranks: a line of the table, the JSON's
 * "metadata" object (null without /metadata). */
static int show_meta(FILE *f, const sl_runset *set, sl_show_format fmt, const sl_infos *meta)
{
    if (fmt == SL_SHOW_JSON) {
        fputs(",\"" SL_H5N_metadata "\":", f);
        if (!set->meta.present) {
            fputs("null", f);
            return 0;
        }
        fputc('{', f);
        sl_show_json_infos(f, meta);
        fputc('}', f);
    } else if (fmt == SL_SHOW_TABLE) {
        int none;
        char *title = sl_info_run_title(&set->meta, &none);
        if (!title)
            return none ? 0 : -ENOMEM;
        fprintf(f, "%s\n\n", title);
        free(title);
    }
    return 0;
}

/* The whole output: the runs of set that flt selects, each by its
 * renderer (show.h); path is the file's name as the JSON output quotes it.
 * 0 or negative errno (-ENOMEM, -EIO when f could not be written). */
static int show_write(FILE *f, const sl_runset *set, const char *path, sl_show_format fmt,
                      const sl_show_filter *flt)
{
    sl_infos meta;
    if (sl_info_meta(&set->meta, &meta))
        return -ENOMEM;
    if (fmt == SL_SHOW_CSV)
        fputs("rank,section,group_id,group_name,tag,thread,cpu,row,value\n", f);
    if (fmt == SL_SHOW_JSON) {
        fputs("{\"file\":", f);
        sl_json_bytes(f, path);
    }
    int rc = show_meta(f, set, fmt, &meta);
    if (fmt == SL_SHOW_JSON)
        fputs(",\"ranks\":[", f);
    size_t shown = 0;
    for (size_t i = 0; i < set->nruns && rc == 0; i++)
        if (sl_filter_rank(flt, set->runs[i].rank))
            rc = show_run(f, fmt, shown++, &set->runs[i], flt, &meta);
    if (fmt == SL_SHOW_JSON)
        fputs("]}\n", f);
    if (rc == 0 && (fflush(f) || ferror(f)))
        rc = -EIO;
    sl_infos_free(&meta);
    return rc;
}

/* The filters' check over every file: the runs of sets side by side (the
 * runs are borrowed, not copied). 0, or the exit code after the message. */
static int check_filters(const sl_show_filter *flt, const sl_runset *sets, int nsets,
                         char **paths)
{
    sl_runset all = {0};
    for (int i = 0; i < nsets; i++)
        all.nruns += sets[i].nruns;
    all.runs = malloc((all.nruns ? all.nruns : 1) * sizeof *all.runs);
    if (!all.runs) {
        sl_error("show", "%s", strerror(ENOMEM));
        return SL_EXIT_FAIL;
    }
    size_t k = 0;
    for (int i = 0; i < nsets; i++)
        for (size_t r = 0; r < sets[i].nruns; r++)
            all.runs[k++] = sets[i].runs[r];
    char many[64];
    snprintf(many, sizeof many, "the %d files", nsets);
    sl_why msg;
    sl_why_heap(&msg);
    int rc = sl_filter_check(flt, &all, nsets == 1 ? paths[0] : many, &msg);
    if (rc)
        sl_error("show", "%s", msg.len ? sl_why_text(&msg) : strerror(-rc));
    sl_why_free(&msg);
    free(all.runs);
    return rc ? SL_EXIT_FAIL : 0;
}

static int no_filters(const sl_show_filter *flt)
{
    return !flt->nranks && !flt->nregions && !flt->ngroups && !flt->nmetrics &&
           flt->threads == SL_THREADS_ALL;
}

/* The summary of sets (summary.h); 0 or negative errno. */
static int summary_write(FILE *f, const sl_runset *sets, int nsets, sl_show_format fmt,
                         const sl_show_filter *flt)
{
    sl_summary sum;
    int rc = sl_summary_build(sets, (size_t)nsets, flt, &sum);
    if (!rc)
        rc = fmt == SL_SHOW_CSV ? sl_summary_csv(f, &sum) : sl_summary_table(f, &sum);
    sl_summary_free(&sum);
    if (rc == 0 && (fflush(f) || ferror(f)))
        rc = -EIO;
    return rc;
}

int sl_cmd_show(int argc, char **argv)
{
    sl_show_format fmt = SL_SHOW_TABLE;
    sl_show_filter flt = {0};
    int summary = 0, nsets = 0;
    int rc = parse_args(argc, argv, &fmt, &flt, &summary, &nsets);
    if (rc >= 0) {
        sl_show_filter_free(&flt);
        return rc;
    }
    char **paths = argv + optind;
    sl_runset *sets = calloc((size_t)nsets, sizeof *sets);
    rc = sets ? 0 : SL_EXIT_FAIL;
    if (!sets)
        sl_error("show", "%s", strerror(ENOMEM));
    int nread = 0;
    for (; nread < nsets && !rc; nread++)
        if (sl_read_result("show", paths[nread], &sets[nread]) < 0)
            rc = SL_EXIT_FAIL;
    if (!rc)
        rc = check_filters(&flt, sets, nsets, paths);
    if (!rc && summary) {
        int w = summary_write(stdout, sets, nsets, fmt, &flt);
        if (w < 0)
            sl_error("show", "%s: %s", paths[0], strerror(-w));
        rc = w < 0 ? SL_EXIT_FAIL : 0;
    } else if (!rc) {
        int w = 0;
        if (fmt == SL_SHOW_TABLE && no_filters(&flt) && sets[0].nruns >= SL_SUMMARY_FIRST) {
            w = summary_write(stdout, sets, 1, fmt, &flt);
            if (!w)
                fputc('\n', stdout);
        }
        if (!w)
            w = show_write(stdout, &sets[0], paths[0], fmt, &flt);
        if (w < 0)
            sl_error("show", "%s: %s", paths[0], strerror(-w));
        rc = w < 0 ? SL_EXIT_FAIL : 0;
    }
    for (int i = 0; i < nread; i++)
        sl_runset_free(&sets[i]);
    free(sets);
    sl_show_filter_free(&flt);
    return rc ? rc : SL_EXIT_OK;
}
