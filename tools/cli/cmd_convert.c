/* scope-likwid convert: a LIKWID marker file (or a scope-likwid rescue file)
 * into a result file. */
#include "cmds.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_files.h"
#include "diag.h"
#include "fileio.h"
#include "groupfile.h"
#include "h5write.h"
#include "markerfile.h"
#include "run.h"
#include "wire.h"

/* Where Debian's likwid installs its group files (perfgroups/<arch>/) */
#define SL_PERFGROUPS "/usr/share/likwid/perfgroups"

static const char usage[] =
    "usage: scope-likwid convert INPUT [-o OUT.h5] [--rank R] [--strict] [--into FILE.h5]\n"
    "                            [--group GROUP[,GROUP...] --arch ARCH [--clock HZ]\n"
    "                             [--sockets N] [--numa-domains N]]\n"
    "\n"
    "Converts INPUT, a LIKWID marker result file (LIKWID 5.2 and later), a\n"
    "scope-likwid rescue file or a result file (the counters of one rank:\n"
    "rank<R>/likwid), into a scope-likwid result file.\n"
    "\n"
    "  -o, --output OUT.h5   where to write; default: INPUT's file name without\n"
    "                        its extension, plus \".h5\", in the current directory.\n"
    "                        An existing file is never overwritten: OUT.1.h5,\n"
    "                        OUT.2.h5, ... is used instead (printed).\n"
    "  --rank R              store as rank<R> and set mpi_rank = R (default: rank\n"
    "                        0 and mpi_rank -1 for a marker file; a rescue file\n"
    "                        keeps its recorded rank); of a result file, take\n"
    "                        rank<R> (needed when it holds several ranks)\n"
    "  --strict              any defect in INPUT is an error (default: defective\n"
    "                        lines are skipped, reported on stderr, and the rest\n"
    "                        is written)\n"
    "  --into FILE.h5        add (or replace) rank<R>/likwid in an existing\n"
    "                        scope-likwid result file or scope-profiler file\n"
    "                        (profiling_data.h5) instead, leaving everything\n"
    "                        else in it untouched (any other file is refused);\n"
    "                        into scope-profiler's file in its own LIKWID layout\n"
    "  --group GROUP[,GROUP...]  --arch ARCH\n"
    "                        the LIKWID event groups the marker file was measured\n"
    "                        with (likwid-perfctr -g, in order: group id 0, 1, ...)\n"
    "                        and the CPU architecture, a folder of LIKWID's group\n"
    "                        files ($SCOPE_LIKWID_PERFGROUPS, default\n"
    "                        " SL_PERFGROUPS "; likwid-perfctr -i's\n"
    "                        \"CPU short\": skylakeX, haswell, zen3, ...): the\n"
    "                        counters from the marker file get the EVENTSET's\n"
    "                        event and counter names, and every METRICS formula\n"
    "                        is evaluated per thread as likwid-perfctr does (time\n"
    "                        = the region's time). A GROUP with a '/' is a group\n"
    "                        file's path. A region whose event count differs from\n"
    "                        its group file's EVENTSET is an error\n"
    "  --clock HZ            LIKWID's cycle clock (the TSC, \"CPU clock\" of\n"
    "                        likwid-perfctr -i): metrics with inverseClock (Clock [MHz],\n"
    "                        Runtime unhalted [s], ...) need it; without it they\n"
    "                        are left out and said so (on stderr and in\n"
    "                        likwid_status)\n"
    "  --sockets N, --numa-domains N\n"
    "                        the node's sockets and NUMA domains (likwid-topology),\n"
    "                        for the metrics with num_sockets and num_numadomains\n"
    "                        (AMD memory bandwidths); without them those are left\n"
    "                        out likewise\n"
    "  -h, --help            this help\n"
    "\n"
    "Prints \"wrote PATH\" on success. Exit codes: 0 written, 1 bad input or\n"
    "failed write (nothing written), 2 usage error.\n";

struct convert_opts {
    const char *input;
    const char *output;
    const char *into;
    int strict;
    int have_rank;
    long long rank;
    const char *groups;     /* --group: comma list */
    const char *arch;
    double clock_hz;        /* --clock; 0: not given */
    long long sockets, numa; /* --sockets, --numa-domains; 0: not given */
};

static int parse_args(int argc, char **argv, struct convert_opts *o, int *help)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"into", required_argument, NULL, 'i'},
        {"rank", required_argument, NULL, 'r'},   {"strict", no_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},         {"group", required_argument, NULL, 'g'},
        {"arch", required_argument, NULL, 'a'},   {"clock", required_argument, NULL, 'c'},
        {"sockets", required_argument, NULL, 'S'}, {"numa-domains", required_argument, NULL, 'N'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 0;
    while ((c = sl_getopt("convert", argc, argv, ":ho:", opts)) != SL_OPT_END) {
        switch (c) {
        case 'h':
            *help = 1;
            return 0;
        case 's':
            o->strict = 1;
            break;
        case 'o':
            o->output = optarg;
            break;
        case 'i':
            o->into = optarg;
            break;
        case 'g':
            o->groups = optarg;
            break;
        case 'a':
            o->arch = optarg;
            break;
        case 'S':
        case 'N': {
            long long *n = c == 'S' ? &o->sockets : &o->numa;
            if (sl_parse_i64(optarg, n) || *n < 1)
                return sl_usage_error("convert", "bad %s '%s': expected an integer >= 1",
                                      c == 'S' ? "--sockets" : "--numa-domains", optarg);
            break;
        }
        case 'c': {
            char *end;
            o->clock_hz = strtod(optarg, &end);
            if (end == optarg || *end || !(o->clock_hz > 0) || !isfinite(o->clock_hz))
                return sl_usage_error("convert", "bad clock '%s': expected a frequency in Hz > 0 "
                                      "(2.4e9)", optarg);
            break;
        }
        case 'r':
            if (sl_parse_i64(optarg, &o->rank) || o->rank < 0)
                return sl_usage_error("convert", "bad rank '%s': expected a non-negative integer",
                                      optarg);
            o->have_rank = 1;
            break;
        default:
            return SL_EXIT_USAGE;
        }
    }
    if (sl_operands("convert", argc, argv, 1, 1, "INPUT") < 0)
        return SL_EXIT_USAGE;
    o->input = argv[optind];
    if (o->output && o->into)
        return sl_usage_error("convert", "-o and --into exclude each other");
    if (!o->groups != !o->arch)
        return sl_usage_error("convert", "--group and --arch go together: expected both or neither");
    if ((o->clock_hz || o->sockets || o->numa) && !o->groups)
        return sl_usage_error("convert", "--clock, --sockets and --numa-domains go with --group "
                              "and --arch");
    return 0;
}

/* INPUT's file name without directory and last extension, plus ".h5". */
static char *default_output(const char *input)
{
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        n = (size_t)(dot - base);
    if (n == 0) {
        base = "converted";
        n = strlen(base);
    }
    char *out = malloc(n + 4);
    if (out) {
        memcpy(out, base, n);
        memcpy(out + n, ".h5", 4);
    }
    return out;
}

static void print_diag(const sl_diag *d)
{
    for (size_t i = 0; i < d->kept; i++)
        sl_error("convert", "%s", d->lines[i]);
    if (d->count > d->kept)
        sl_error("convert", "%zu more problems not shown", d->count - d->kept);
}

static int fill_from_marker_file(sl_run *run, const char *buf, size_t len,
                                 const struct convert_opts *o, sl_diag *diag)
{
    sl_markerfile_info info;
    memset(&info, 0, sizeof info);
    int rc = sl_markerfile_parse(buf, len, o->input, o->strict ? SL_MF_STRICT : 0,
                                 &run->likwid, &info, diag);
    if (rc < 0)
        return rc;
    if (o->strict && diag->count)
        return -EINVAL;     /* belt and braces: strict means no defect at all */
    run->likwid.source = SL_SOURCE_MARKER_FILE;
    run->rank = o->have_rank ? o->rank : 0;
    run->mpi_rank = o->have_rank ? o->rank : -1;
    run->pid = -1;
    char status[4096 + 160];
    int n = snprintf(status, sizeof status, "marker_file: converted from %s by scope-likwid convert",
                     o->input);
    if (n > 0 && (size_t)n < sizeof status) {
        if (info.skipped_lines)
            n += snprintf(status + n, sizeof status - (size_t)n, "; skipped %zu defective lines",
                          info.skipped_lines);
        else if (diag->count)
            n += snprintf(status + n, sizeof status - (size_t)n, "; %zu defects reported",
                          diag->count);
        if (info.lost_lines && n > 0 && (size_t)n < sizeof status)
            snprintf(status + n, sizeof status - (size_t)n,
                     "; %zu value lines of only -22 (LIKWID 5.5's -EINVAL: values it lost) "
                     "left out", info.lost_lines);
    }
    if (sl_set_string(&run->likwid_status, status) || sl_set_string(&run->timing.clock, "none"))
        return -ENOMEM;
    run->timing.origin_unix_ns = 0;
    /* all /metadata can know of a marker file: its threads */
    for (size_t i = 0; i < run->likwid.nregions; i++)
        if ((int64_t)run->likwid.regions[i].nthreads > run->meta.omp_num_threads)
            run->meta.omp_num_threads = (int64_t)run->likwid.regions[i].nthreads;
    return 0;
}

static int fill_from_wire(sl_run *run, const char *buf, size_t len, const struct convert_opts *o,
                          sl_diag *diag)
{
    int rc = sl_wire_read_run(buf, len, o->input, run, diag);
    if (rc < 0)
        return rc;
    if (o->have_rank) {
        run->rank = o->rank;
        run->mpi_rank = o->rank;
    }
    return 0;
}

/* One run of a result file (ours, or scope-profiler's with rank<N>/likwid):
 * the one it holds, or rank<R> with --rank R; it must have counter data. */
static int fill_from_result(sl_run *run, const struct convert_opts *o, sl_diag *diag)
{
    sl_runset set;
    int rc = sl_h5_read(o->input, &set, diag);
    if (rc < 0)
        return rc;
    size_t at = set.nruns;
    for (size_t i = 0; i < set.nruns; i++)
        if (o->have_rank ? set.runs[i].rank == o->rank : set.nruns == 1)
            at = i;
    if (at == set.nruns) {
        if (o->have_rank)
            sl_diag_add(diag, o->input, 0, "no rank%lld: expected --rank R of a rank the file holds",
                        o->rank);
        else
            sl_diag_add(diag, o->input, 0, "holds %zu ranks: expected --rank R to choose one",
                        set.nruns);
        rc = -EINVAL;
    } else if (set.runs[at].likwid.source == SL_SOURCE_NONE) {
        sl_diag_add(diag, o->input, 0, "/%s has no counter data: expected a %s group to convert",
                    set.runs[at].group ? set.runs[at].group : "rank", "likwid");
        rc = -EINVAL;
    } else {
        sl_run_free(run);
        *run = set.runs[at];
        memset(&set.runs[at], 0, sizeof set.runs[at]);
        sl_run_meta_free(&run->meta);
        run->meta = set.meta.run; /* the file's /metadata, for a new file */
        memset(&set.meta.run, 0, sizeof set.meta.run);
        if (sl_run_meta_init(&set.meta.run) < 0)
            rc = -ENOMEM;
    }
    sl_runset_free(&set);
    return rc;
}

/* --group/--arch: each group id's group file; what was left out also on
 * stderr. */
static int apply_groups(sl_run *run, const struct convert_opts *o, sl_diag *diag)
{
    const char *dir = getenv("SCOPE_LIKWID_PERFGROUPS");
    if (!dir || !*dir)
        dir = SL_PERFGROUPS;
    sl_group_node node = {.clock_hz = o->clock_hz ? o->clock_hz : NAN,
                          .num_sockets = o->sockets ? (double)o->sockets : NAN,
                          .num_numadomains = o->numa ? (double)o->numa : NAN};
    size_t before = strlen(run->likwid_status), left = 0;
    int rc = sl_group_apply_run(run, dir, o->arch, o->groups, ",", &node, 1, &left, diag);
    if (rc == 0 && left)
        sl_error("convert", "%s: %s", o->input, run->likwid_status + before + 2);
    return rc;
}

int sl_cmd_convert(int argc, char **argv)
{
    struct convert_opts o;
    memset(&o, 0, sizeof o);
    int help = 0;
    int rc = parse_args(argc, argv, &o, &help);
    if (rc)
        return rc;
    if (help) {
        fputs(usage, stdout);
        return SL_EXIT_OK;
    }

    sl_diag diag;
    sl_diag_init(&diag);
    sl_run run;
    if (sl_run_init(&run) < 0) {
        sl_error("convert", "out of memory");
        return SL_EXIT_FAIL;
    }
    /* --into adds to a result file only: anything else is left as it is */
    if (o.into && sl_file_refuse("convert", o.into, sl_file_probe(o.into))) {
        sl_run_free(&run);
        return SL_EXIT_FAIL;
    }
    char *buf = NULL, *out_default = NULL, *written = NULL;
    size_t len = 0;
    int status = SL_EXIT_FAIL;

    sl_file_kind in_kind = sl_file_probe(o.input);
    if (in_kind == SL_FILE_OTHER_HDF5) { /* not a marker file either */
        sl_file_refuse("convert", o.input, in_kind);
        goto done;
    }
    if (in_kind == SL_FILE_RESULT || in_kind == SL_FILE_SP) {
        rc = fill_from_result(&run, &o, &diag);
        goto write;
    }
    rc = sl_read_file(o.input, 0, &buf, &len);
    if (rc == -EISDIR || (rc < 0 && sl_file_probe(o.input) == SL_FILE_DIRECTORY)) {
        sl_diag_add(&diag, o.input, 0, "a directory: expected a LIKWID marker file");
        goto done;
    }
    if (rc < 0) {
        sl_diag_add(&diag, o.input, 0, "cannot read: %s: expected a readable LIKWID marker file",
                    strerror(-rc));
        goto done;
    }
    if (sl_wire_is_wire(buf, len))
        rc = fill_from_wire(&run, buf, len, &o, &diag);
    else
        rc = fill_from_marker_file(&run, buf, len, &o, &diag);
    free(buf);
    buf = NULL;
write:
    if (rc >= 0 && o.groups)
        rc = apply_groups(&run, &o, &diag);
    if (rc < 0) {
        if (!diag.count)
            sl_diag_add(&diag, o.input, 0, "cannot convert: %s: expected a LIKWID marker file",
                        strerror(-rc));
        goto done;
    }

    if (o.into) {
        rc = sl_h5_into(o.into, &run, &diag);
        if (rc == 0)
            printf("wrote %s\n", o.into);
    } else {
        const char *out = o.output;
        if (!out && !(out = out_default = default_output(o.input))) {
            rc = -ENOMEM;
        } else {
            rc = sl_h5_write(out, &run, 1, &written, &diag);
            if (rc == 0)
                printf("wrote %s\n", written ? written : out);
        }
    }
    if (rc < 0) {
        if (!diag.count)
            sl_diag_add(&diag, o.into ? o.into : (o.output ? o.output : out_default), 0,
                        "cannot write: %s: expected a writable HDF5 file", strerror(-rc));
        goto done;
    }
    status = SL_EXIT_OK;
done:
    print_diag(&diag);
    free(buf);
    free(out_default);
    free(written);
    sl_run_free(&run);
    sl_diag_free(&diag);
    return status;
}
