/* scope-likwid: the command-line tool. Dispatches to one subcommand each. */
#include "cmds.h"
#include "sandbox.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: scope-likwid COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  convert INPUT [-o OUT.h5] [--rank R] [--strict] [--into FILE.h5]\n"
    "                 LIKWID marker file (or scope-likwid rescue file) -> result file\n"
    "  show FILE.h5 [--csv | --json] [--rank R] [--region PATTERN] [--group G]\n"
    "               [--metric NAME] [--threads sum|mean|max|all]\n"
    "                 print a result file as tables, CSV or JSON\n"
    "  export FILE.h5 --format csv|json [-o OUT]\n"
    "                 one row per (rank, region, group, thread) with every value\n"
    "  diff BASE.h5 NEW.h5 [--threshold 10%] [--metric NAME]\n"
    "                 compare region runtimes; exit 1 when a region got slower\n"
    "  merge -o JOB.h5 RANK_FILES...\n"
    "                 one file with the rank groups of every input\n"
    "  plot FILE.h5 [-o report.html|report.svg] [--metric NAME] [--max-calls N]\n"
    "                 a self-contained HTML (or SVG) report\n"
    "  run [likwid-perfctr options] -- APP [ARGS]\n"
    "                 run APP with the scope-likwid shim (under likwid-perfctr -m\n"
    "                 when LIKWID can count on this host)\n"
    "\n"
    "  scope-likwid COMMAND --help   help on one command\n"
    "  scope-likwid --version        print the version\n"
    "\n"
    "exit codes: 0 ok, 1 bad input or failed write, 2 usage error\n"
    "(run: the application's exit status; diff: 1 also when a region got slower)\n";

int sl_usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("scope-likwid: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("; try 'scope-likwid --help'\n", stderr);
    return SL_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return sl_usage_error("missing command");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return SL_EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        puts("scope-likwid " SCOPE_LIKWID_VERSION);
        return SL_EXIT_OK;
    }
    if (!strcmp(cmd, "convert"))
        return sl_cmd_convert(argc - 1, argv + 1);
    if (!strcmp(cmd, "show"))
        return sl_sandbox_run(sl_cmd_show, argc - 1, argv + 1);
    if (!strcmp(cmd, "run"))
        return sl_cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "export"))
        return sl_sandbox_run(sl_cmd_export, argc - 1, argv + 1);
    if (!strcmp(cmd, "diff"))
        return sl_sandbox_run(sl_cmd_diff, argc - 1, argv + 1);
    if (!strcmp(cmd, "merge"))
        return sl_sandbox_run(sl_cmd_merge, argc - 1, argv + 1);
    if (!strcmp(cmd, "plot"))
        return sl_sandbox_run(sl_cmd_plot, argc - 1, argv + 1);
    if (cmd[0] == '-')
        return sl_usage_error("unknown option '%s'", cmd);
    return sl_usage_error("unknown command '%s'", cmd);
}
