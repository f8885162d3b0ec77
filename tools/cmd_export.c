/* scope-likwid export: being written (placeholder until its owner lands it). */
#include <stdio.h>

#include "cmds.h"

int sl_cmd_export(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("scope-likwid: export: not available yet\n", stderr);
    return SL_EXIT_FAIL;
}
