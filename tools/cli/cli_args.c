/* The command-line words show, export and plot share (cli_args.h). */
#include "cli_args.h"

#include <stdio.h>
#include <string.h>

#include "cmds.h"

int sl_arg_common(const char *cmd, const char *usage, const char *a, int *only_operands,
                  const char **path)
{
    if (*only_operands || a[0] != '-' || !a[1]) {
        if (*path)
            return sl_usage_error("%s: more than one FILE ('%s')", cmd, a);
        *path = a;
        return SL_ARG_TAKEN;
    }
    if (!strcmp(a, "--")) {
        *only_operands = 1;
        return SL_ARG_TAKEN;
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        fputs(usage, stdout);
        return SL_EXIT_OK;
    }
    return SL_ARG_OPTION;
}
