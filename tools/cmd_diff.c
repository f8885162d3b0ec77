/* scope-likwid diff: being written (placeholder until its owner lands it). */
#include <stdio.h>

#include "cmds.h"

int sl_cmd_diff(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("scope-likwid: diff: not available yet\n", stderr);
    return SL_EXIT_FAIL;
}
