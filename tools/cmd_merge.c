/* scope-likwid merge: being written (placeholder until its owner lands it). */
#include <stdio.h>

#include "cmds.h"

int sl_cmd_merge(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("scope-likwid: merge: not available yet\n", stderr);
    return SL_EXIT_FAIL;
}
