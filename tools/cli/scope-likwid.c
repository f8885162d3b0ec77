/* scope-likwid: the command-line tool. Dispatches to one subcommand each. */
#include "cmds.h"
#include "sandbox.h"
#include "h5_quiet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: scope-likwid COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  convert INPUT [-o OUT.h5] [--rank R] [--strict] [--into FILE.h5]\n"
    "          [--group GROUP[,GROUP...] --arch ARCH [--clock HZ] [--sockets N]\n"
    "           [--numa-domains N]]\n"
    "                 LIKWID marker file, scope-likwid rescue file or result file\n"
    "                 -> result file (--into: counters into an existing file;\n"
    "                 --group, --arch: metrics from LIKWID's group files)\n"
    "  show FILE.h5 [--csv | --json] [--rank R[,R...]] [--region PATTERN] [--group G]\n"
    "       [--metric NAME] [--threads sum|mean|max|all]\n"
    "                 print a result file as tables, CSV or JSON\n"
    "  show --summary [--csv] [--rank R] [--region PATTERN] [--group G]\n"
    "       [--metric NAME] FILE.h5...\n"
    "                 one row per region over every rank and thread of the files\n"
    "  export FILE.h5 [--format csv|json | --csv | --json] [-o OUT]\n"
    "                 one row per (rank, region, group, thread) with every value\n"
    "  diff BASE.h5 NEW.h5 [--threshold PCT] [--metric NAME[:higher|:lower]]...\n"
    "       [--allow-missing] [--csv | --json] [--junit FILE] [--github]\n"
    "                 compare region runtimes and metrics: a CI gate\n"
    "  merge [--allow-mixed | --per-launch] -o JOB.h5 RANK_FILE.h5...\n"
    "                 one file with the rank groups of every input (of each launch)\n"
    "  plot FILE.h5 [NEW.h5...] [-o OUT.html|OUT.svg] [--metric NAME]...\n"
    "       [--max-calls N]\n"
    "                 a self-contained HTML (or SVG) report; several files compared\n"
    "  run [likwid-perfctr options] -- APP [ARGS]\n"
    "                 run APP with the scope-likwid shim (under likwid-perfctr -m\n"
    "                 when LIKWID can count on this host)\n"
    "  recover [--finished JOB|all]... [DIR|JOURNAL...]\n"
    "                 result files from the journals of killed processes\n"
    "\n"
    "  scope-likwid COMMAND --help     help on one command (also: scope-likwid help COMMAND)\n"
    "  scope-likwid --version          print the version\n"
    "  scope-likwid --print-shim-path  print the absolute path of the shim that\n"
    "                                  run preloads (exit 1 when none is found)\n"
    "\n"
    "Exit codes: 0 ok, 1 bad input or failed write, 2 usage error; diff: 0\n"
    "pass, 1 a regression, 2 nothing compared (bad input, usage); run: the\n"
    "application's exit status, 127 when it is not found, 126 when it cannot\n"
    "be executed.\n"
    "Messages: \"scope-likwid: COMMAND: FILE: what is wrong\", one line each.\n";

static int print_shim_path(void)
{
    char looked[3 * 4096];
    char *shim = sl_find_shim(looked, sizeof looked);
    if (!shim) {
        sl_error(NULL, "cannot find libscope_likwid.so (looked at %s): expected an installed "
                 "or built shim", looked);
        return SL_EXIT_FAIL;
    }
    puts(shim);
    free(shim);
    return SL_EXIT_OK;
}

int main(int argc, char **argv)
{
    sl_h5_quiet_process();  /* our messages say what is wrong (h5_quiet.h) */
    if (argc < 2)
        return sl_usage_error(NULL, "missing command");
    const char *cmd = argv[1];
    /* A subcommand gets argv from its own name on; `help COMMAND` is
     * `COMMAND --help`. */
    int sub_argc = argc - 1;
    char **sub_argv = argv + 1;
    char *help_argv[] = {NULL, "--help", NULL};
    if (!strcmp(cmd, "help") && argc > 2) {
        cmd = help_argv[0] = argv[2];
        sub_argc = 2;
        sub_argv = help_argv;
    } else if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return SL_EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        puts("scope-likwid " SCOPE_LIKWID_VERSION);
        return SL_EXIT_OK;
    }
    /* The reading subcommands run in a sandboxed child (sandbox.h): whatever
     * libhdf5 does on a damaged file, the tool ends with one line and the
     * command's exit status for an input it could not read (diff: 2, as
     * distinct from its 1 for a regression). 0: not sandboxed. */
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
        int damaged_rc;
    } cmds[] = {
        {"convert", sl_cmd_convert, 0}, {"show", sl_cmd_show, 1},   {"run", sl_cmd_run, 0},
        {"export", sl_cmd_export, 1},   {"diff", sl_cmd_diff, 2},   {"merge", sl_cmd_merge, 1},
        {"plot", sl_cmd_plot, 1},       {"recover", sl_cmd_recover, 0},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(cmd, cmds[i].name))
            return cmds[i].damaged_rc
                       ? sl_sandbox_run(cmds[i].run, sub_argc, sub_argv, cmds[i].damaged_rc)
                       : cmds[i].run(sub_argc, sub_argv);
    if (!strcmp(cmd, "--print-shim-path"))
        return print_shim_path();
    if (cmd[0] == '-')
        return sl_usage_error(NULL, "unknown option '%s'", cmd);
    return sl_usage_error(NULL, "unknown command '%s'", cmd);
}
