/* scope-likwid merge: one file for a whole job. The options and the report;
 * the merge itself (HDF5 object copy, placing the file) is h5/h5merge.c. */
#include "cmds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "h5merge.h"
#include "sandbox.h"

static const char usage[] =
    "usage: scope-likwid merge -o OUT.h5 RANK_FILE.h5...\n"
    "\n"
    "Writes one result file holding every rank<R> group of the inputs,\n"
    "copied unchanged (HDF5 object copy), with the root attributes format,\n"
    "format_version and created_by, and one /metadata (from the input holding\n"
    "rank 0). Inputs are only read, in natural order of their names.\n"
    "\n"
    "When two inputs hold the same rank (non-MPI processes are all rank 0),\n"
    "both are kept: the first as rank<R>, later ones under the next numbers\n"
    "after the highest rank (docs/FORMAT.md); each such clash is said on\n"
    "stderr. Every group keeps its mpi_rank and gains merged_from (the input)\n"
    "and merged_from_group (its name there), unless an earlier merge set them.\n"
    "OUT.h5 is never overwritten: OUT.1.h5, OUT.2.h5, ... is used instead.\n"
    "Inputs of different launches (their /metadata run_id differ: another\n"
    "job, step or mpirun) are refused, naming both; one line notes rank\n"
    "groups that ran on different hosts, CPUs or executables.\n"
    "Prints \"wrote PATH\" on success.\n"
    "\n"
    "  -o, --output OUT.h5  the merged file (required)\n"
    "      --allow-mixed    merge inputs of different launches too\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit codes: 0 written, 1 an input is not a readable result file or the\n"
    "write failed (nothing written), 2 usage error.\n";

/* A merge that takes more than a second says how far it is, on the
 * terminal only (stderr a terminal), on one line it rewrites and clears
 * at the end. */
typedef struct progress {
    size_t done, total;
    int fd;             /* the terminal, -1: none */
    double start, last; /* seconds; last: when the line was written, 0: never */
    int width;          /* of the line written */
} progress;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void progress_line(progress *p, double now)
{
    char line[96];
    int n = snprintf(line, sizeof line, "\rscope-likwid: merge: %zu of %zu inputs", p->done,
                     p->total);
    if (n > 0 && (size_t)n < sizeof line && write(p->fd, line, (size_t)n) == n) {
        p->width = n - 1;
        p->last = now;
    }
}

static void progress_clear(progress *p)
{
    if (!p->last)
        return;
    char line[96];
    int n = snprintf(line, sizeof line, "\r%*s\r", p->width, "");
    if (n > 0 && (size_t)n < sizeof line && write(p->fd, line, (size_t)n) < 0)
        p->fd = -1;
    p->last = 0;
}

/* A rank clash is said on stderr as it happens (usage above). */
static void tell_clash(void *ctx, const char *input, const char *group, const char *clash_group,
                       const char *clash_input, const char *written_as)
{
    progress_clear(ctx); /* not run into the progress line (no sandbox) */
    fprintf(stderr, "scope-likwid: merge: %s: /%s clashes with /%s of %s: written as /%s\n",
            input, group, clash_group, clash_input, written_as);
}

/* The input being read, for the sandbox's message if libhdf5 dies on it. */
static void reading(void *ctx, const char *input)
{
    progress *p = ctx;
    sl_sandbox_reading(input);
    if (p->fd < 0)
        return;
    double now = now_s();
    if (now - p->start > 1.0 && now - p->last >= 0.2)
        progress_line(p, now);
    p->done++;
}

/* -o OUT, --allow-mixed and the inputs (from argv + optind); 0 or the exit
 * code. */
static int parse_args(int argc, char **argv, const char **out, int *allow_mixed)
{
    enum { OPT_ALLOW_MIXED = 256 };
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"allow-mixed", no_argument, NULL, OPT_ALLOW_MIXED},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 0;
    while ((c = sl_getopt("merge", argc, argv, ":ho:", opts)) != SL_OPT_END) {
        if (c == 'h') {
            fputs(usage, stdout);
            return SL_EXIT_OK;
        }
        if (c == OPT_ALLOW_MIXED) {
            *allow_mixed = 1;
            continue;
        }
        if (c != 'o')
            return SL_EXIT_USAGE;
        if (*out)
            return sl_usage_error("merge", "-o given twice");
        *out = optarg;
    }
    if (!*out)
        return sl_usage_error("merge", "missing -o OUT.h5");
    if (sl_operands("merge", argc, argv, 1, argc, "RANK_FILE.h5 (no input files)") < 0)
        return SL_EXIT_USAGE;
    return -1;
}

int sl_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    int allow_mixed = 0;
    int prc = parse_args(argc, argv, &out, &allow_mixed);
    if (prc >= 0)
        return prc;
    char **inputs = argv + optind;
    size_t ninputs = (size_t)(argc - optind);

    sl_diag diag;
    sl_diag_init(&diag);
    char *written = NULL;
    progress p = {0, ninputs, sl_sandbox_terminal(), now_s(), 0, 0};
    int rc = sl_h5_merge(out, inputs, ninputs, allow_mixed, tell_clash, reading, &p, &written,
                         &diag);
    progress_clear(&p);
    for (size_t i = 0; i < diag.kept; i++)
        sl_error("merge", "%s", diag.lines[i]);
    if (!rc)
        printf("wrote %s\n", written ? written : out);
    else
        sl_error("merge", "%s: nothing written", out);
    free(written);
    sl_diag_free(&diag);
    return rc ? SL_EXIT_FAIL : SL_EXIT_OK;
}
