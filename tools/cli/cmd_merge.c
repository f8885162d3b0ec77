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
#include "name_fit.h"
#include "sandbox.h"

static const char usage[] =
    "usage: scope-likwid merge [--allow-mixed | --per-launch] -o OUT.h5 RANK_FILE.h5...\n"
    "\n"
    "Writes one result file holding every rank<R> group of the inputs,\n"
    "copied unchanged (HDF5 object copy), with the root attributes format,\n"
    "format_version and created_by, and one /metadata (from the input holding\n"
    "rank 0). Inputs are only read, in natural order of their names.\n"
    "\n"
    "When two inputs hold the same rank (non-MPI processes are all rank 0),\n"
    "both are kept: the first as rank<R>, later ones under the next numbers\n"
    "after the highest rank (docs/FORMAT.md), said in one line on stderr\n"
    "(how many clashed, and the first). Every group keeps its mpi_rank and\n"
    "gains merged_from (the input) and merged_from_group (its name there),\n"
    "unless an earlier merge set them.\n"
    "OUT.h5 is never overwritten: OUT.1.h5, OUT.2.h5, ... is used instead.\n"
    "Inputs of different launches (their /metadata run_id differ: another\n"
    "job, step or mpirun) are refused, naming both; one line notes rank\n"
    "groups that ran on different hosts, CPUs or executables.\n"
    "Prints \"wrote PATH\" on success.\n"
    "\n"
    "  -o, --output OUT.h5  the merged file (required)\n"
    "      --allow-mixed    merge inputs of different launches too\n"
    "      --per-launch     one merged file per launch: OUT.h5 when the inputs\n"
    "                       are of one, else OUT.<run_id>.h5 for each (run_id's\n"
    "                       characters other than letters, digits, '.', '-' as\n"
    "                       '_'); a line \"wrote PATH\" for each\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit codes: 0 written, 1 an input is not a readable result file or the\n"
    "write failed (nothing written; --per-launch: for that launch), 2 usage\n"
    "error.\n";

/* A merge that takes more than a second says how far it is, on the
 * terminal only (stderr a terminal), on one line it rewrites and clears
 * at the end. Its clashes are said in one line when it is written. */
typedef struct progress {
    size_t done, total;
    int fd;             /* the terminal, -1: none */
    double start, last; /* seconds; last: when the line was written, 0: never */
    int width;          /* of the line written */
    size_t clashes;     /* of the merge under way */
    char *first_clash;  /* its first, as a line says one; NULL: none (or no memory) */
    char first_as[48], last_as[48]; /* where the first and the last clash were written */
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

/* A rank clash, noted for the line said at the end (tell_clashes). */
static void note_clash(void *ctx, const char *input, const char *group, const char *clash_group,
                       const char *clash_input, const char *written_as)
{
    progress *p = ctx;
    if (p->clashes++ == 0) {
        if (asprintf(&p->first_clash, "%s: /%s clashes with /%s of %s", input, group,
                     clash_group, clash_input) < 0)
            p->first_clash = NULL;
        snprintf(p->first_as, sizeof p->first_as, "%s", written_as);
    }
    snprintf(p->last_as, sizeof p->last_as, "%s", written_as);
}

/* One line for every clash of a merge that was written: thousands of
 * non-MPI inputs (all rank 0) clash thousands of times. */
static void tell_clashes(progress *p, int written)
{
    if (written && p->clashes == 1 && p->first_clash)
        sl_error("merge", "%s: written as /%s", p->first_clash, p->first_as);
    else if (written && p->clashes > 1)
        sl_error("merge", "%zu rank groups clash with a rank of an earlier input: written as /%s "
                 "to /%s (merged_from and merged_from_group say where each came from); the "
                 "first: %s", p->clashes, p->first_as, p->last_as,
                 p->first_clash ? p->first_clash : "(out of memory)");
    free(p->first_clash);
    p->first_clash = NULL;
    p->clashes = 0;
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

/* -o OUT, --allow-mixed, --per-launch and the inputs (from argv +
 * optind); -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, const char **out, int *allow_mixed, int *per_launch)
{
    enum { OPT_ALLOW_MIXED = 256, OPT_PER_LAUNCH };
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"allow-mixed", no_argument, NULL, OPT_ALLOW_MIXED},
        {"per-launch", no_argument, NULL, OPT_PER_LAUNCH},
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
        if (c == OPT_ALLOW_MIXED || c == OPT_PER_LAUNCH) {
            *(c == OPT_ALLOW_MIXED ? allow_mixed : per_launch) = 1;
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

/* One merge: its lines on stdout and stderr; 0 written, else 1. */
static int merge_one_output(const char *out, char **inputs, size_t ninputs, int allow_mixed,
                            progress *p)
{
    sl_diag diag;
    sl_diag_init(&diag);
    char *written = NULL;
    int rc = sl_h5_merge(out, inputs, ninputs, allow_mixed, note_clash, reading, p, &written,
                         &diag);
    progress_clear(p);
    tell_clashes(p, !rc);
    for (size_t i = 0; i < diag.kept; i++)
        sl_error("merge", "%s", diag.lines[i]);
    if (!rc)
        printf("wrote %s\n", written ? written : out);
    else
        sl_error("merge", "%s: nothing written", out);
    free(written);
    sl_diag_free(&diag);
    return rc ? 1 : 0;
}

/* An input and its launch (--per-launch). */
typedef struct launch_of {
    char *input;
    char *run_id;
    size_t group;       /* the launch's number, in order of run_id */
} launch_of;

/* By launch (slurm-45.2 before slurm-45.10), then by input. */
static int by_launch(const void *a, const void *b)
{
    const launch_of *x = a, *y = b;
    int c = strverscmp(x->run_id, y->run_id);
    return c ? c : strverscmp(x->input, y->input);
}

/* OUT.<run_id>.h5 (OUT's extension kept last; run_id's characters other
 * than letters, digits, '.', '-' as '_'). Newly allocated. */
static char *launch_output(const char *out, const char *run_id)
{
    const char *base = strrchr(out, '/');
    base = base ? base + 1 : out;
    const char *dot = strrchr(base, '.');
    if (dot == base)
        dot = NULL;
    size_t head = dot ? (size_t)(dot - out) : strlen(out);
    char suffix[200];
    size_t n = 0;
    suffix[n++] = '.';
    for (const char *r = *run_id ? run_id : "unknown"; *r && n < 150; r++)
        suffix[n++] = (*r >= 'a' && *r <= 'z') || (*r >= 'A' && *r <= 'Z') ||
                              (*r >= '0' && *r <= '9') || *r == '.' || *r == '-'
                          ? *r
                          : '_';
    snprintf(suffix + n, sizeof suffix - n, "%s", dot ? dot : "");
    char *stem = strndup(out, head);
    char *name = stem ? sl_name_fit(stem, "", suffix) : NULL;
    free(stem);
    return name;
}

/* --per-launch: the inputs grouped by /metadata run_id, one merge each. */
static int merge_per_launch(const char *out, char **inputs, size_t ninputs, progress *p)
{
    launch_of *l = calloc(ninputs, sizeof *l);
    char **group = calloc(ninputs, sizeof *group);
    int failed = !l || !group;
    size_t ngroups = 0;
    for (size_t i = 0; !failed && i < ninputs; i++) {
        sl_diag diag;
        sl_diag_init(&diag);
        l[i].input = inputs[i];
        sl_sandbox_reading(inputs[i]);
        if (sl_h5_launch(inputs[i], &l[i].run_id, &diag) != 0) {
            for (size_t k = 0; k < diag.kept; k++)
                sl_error("merge", "%s", diag.lines[k]);
            sl_error("merge", "%s: nothing written", out);
            failed = 1;
        }
        sl_diag_free(&diag);
    }
    if (!failed)
        qsort(l, ninputs, sizeof *l, by_launch);
    for (size_t i = 0; !failed && i < ninputs; i++)
        l[i].group = i && !strcmp(l[i - 1].run_id, l[i].run_id) ? l[i - 1].group : ngroups++;
    for (size_t g = 0; !failed && g < ngroups; g++) {
        size_t n = 0;
        const char *run_id = "";
        for (size_t i = 0; i < ninputs; i++)
            if (l[i].group == g) {
                group[n++] = l[i].input;
                run_id = l[i].run_id;
            }
        char *name = ngroups == 1 ? strdup(out) : launch_output(out, run_id);
        if (!name) {
            sl_error("merge", "out of memory");
            failed = 1;
            break;
        }
        failed |= merge_one_output(name, group, n, 0, p);
        free(name);
    }
    for (size_t i = 0; l && i < ninputs; i++)
        free(l[i].run_id);
    free(l);
    free(group);
    return failed ? SL_EXIT_FAIL : SL_EXIT_OK;
}

int sl_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    int allow_mixed = 0, per_launch = 0;
    int prc = parse_args(argc, argv, &out, &allow_mixed, &per_launch);
    if (prc >= 0)
        return prc;
    if (allow_mixed && per_launch)
        return sl_usage_error("merge", "--allow-mixed and --per-launch: choose one");
    char **inputs = argv + optind;
    size_t ninputs = (size_t)(argc - optind);
    progress p = {.total = ninputs, .fd = sl_sandbox_terminal(), .start = now_s()};
    if (per_launch)
        return merge_per_launch(out, inputs, ninputs, &p);
    return merge_one_output(out, inputs, ninputs, allow_mixed, &p) ? SL_EXIT_FAIL : SL_EXIT_OK;
}
