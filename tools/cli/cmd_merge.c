/* scope-likwid merge: one file for a whole job. The options and the report;
 * the merge itself (HDF5 object copy, placing the file) is h5/h5merge.c. */
#include "cmds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    "Prints \"wrote PATH\" on success.\n"
    "\n"
    "  -o, --output OUT.h5  the merged file (required)\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit codes: 0 written, 1 an input is not a readable result file or the\n"
    "write failed (nothing written), 2 usage error.\n";

/* A rank clash is said on stderr as it happens (usage above). */
static void tell_clash(void *ctx, const char *input, const char *group, const char *clash_group,
                       const char *clash_input, const char *written_as)
{
    (void)ctx;
    fprintf(stderr, "scope-likwid: merge: %s: /%s clashes with /%s of %s: written as /%s\n",
            input, group, clash_group, clash_input, written_as);
}

/* The input being read, for the sandbox's message if libhdf5 dies on it. */
static void reading(void *ctx, const char *input)
{
    (void)ctx;
    sl_sandbox_reading(input);
}

/* -o OUT and the inputs (from argv + optind); 0 or the exit code. */
static int parse_args(int argc, char **argv, const char **out)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 0;
    while ((c = sl_getopt("merge", argc, argv, ":ho:", opts)) != SL_OPT_END) {
        if (c == 'h') {
            fputs(usage, stdout);
            return SL_EXIT_OK;
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
    int prc = parse_args(argc, argv, &out);
    if (prc >= 0)
        return prc;
    char **inputs = argv + optind;
    size_t ninputs = (size_t)(argc - optind);

    sl_diag diag;
    sl_diag_init(&diag);
    char *written = NULL;
    int rc = sl_h5_merge(out, inputs, ninputs, tell_clash, reading, NULL, &written, &diag);
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
