/* Internal header: not installed. The subcommands of `scope-likwid`; each
 * gets argv starting at its own name and returns the process exit code. */
#ifndef SL_CMDS_H
#define SL_CMDS_H

#include <stddef.h>

#include "cli_args.h"    /* sl_getopt, sl_usage_error, sl_error */
#include "parse_int.h"   /* sl_parse_i64, for the option parsers */

/* Exit codes shared by every subcommand. */
enum {
    SL_EXIT_OK = 0,
    SL_EXIT_FAIL = 1,   /* bad input or failed write */
    SL_EXIT_USAGE = 2,  /* unknown option, missing argument, ... */
};

int sl_cmd_convert(int argc, char **argv);
int sl_cmd_show(int argc, char **argv);
int sl_cmd_run(int argc, char **argv);
int sl_cmd_export(int argc, char **argv);
int sl_cmd_diff(int argc, char **argv);
int sl_cmd_merge(int argc, char **argv);
int sl_cmd_plot(int argc, char **argv);
int sl_cmd_recover(int argc, char **argv);
int sl_cmd_recover(int argc, char **argv);

/* The shim run would preload: $SCOPE_LIKWID_SHIM, else beside this program
 * in the build tree (../shim/) or installed (bindir -> libdir). Absolute
 * path, newly allocated; NULL (looked: where it looked) when none. */
char *sl_find_shim(char *looked, size_t size);

#endif
