/* scope-likwid merge: one file for a whole job. The options and the report;
 * the merge itself (HDF5 object copy, placing the file) is h5/h5merge.c. */
#include "cmds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "h5merge.h"

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

int sl_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    char **inputs = calloc((size_t)argc, sizeof *inputs);
    size_t ninputs = 0;
    int only_positional = 0;
    if (!inputs)
        return SL_EXIT_FAIL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_positional || a[0] != '-' || !a[1]) {
            inputs[ninputs++] = argv[i];
        } else if (!strcmp(a, "--")) {
            only_positional = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            free(inputs);
            return SL_EXIT_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc || out) {
                free(inputs);
                return sl_usage_error(out ? "merge: -o given twice" : "merge: %s needs a file", a);
            }
            out = argv[++i];
        } else {
            free(inputs);
            return sl_usage_error("merge: unknown option '%s'", a);
        }
    }
    if (!out || !ninputs) {
        free(inputs);
        return sl_usage_error(!out ? "merge: missing -o OUT.h5" : "merge: no input files");
    }

    sl_diag diag;
    sl_diag_init(&diag);
    char *written = NULL;
    int rc = sl_h5_merge(out, inputs, ninputs, tell_clash, NULL, &written, &diag);
    for (size_t i = 0; i < diag.kept; i++)
        fprintf(stderr, "%s\n", diag.lines[i]);
    if (!rc)
        printf("wrote %s\n", written ? written : out);
    else
        fprintf(stderr, "scope-likwid: merge: nothing written\n");
    free(written);
    sl_diag_free(&diag);
    free(inputs);
    return rc ? SL_EXIT_FAIL : SL_EXIT_OK;
}
