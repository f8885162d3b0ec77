/* One option parser and one voice for every subcommand (cli_args.h). */
#include "cli_args.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"

/* "scope-likwid: [CMD: ]MSG" without the line end */
static void vmessage(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "scope-likwid: %s%s", cmd ? cmd : "", cmd ? ": " : "");
    vfprintf(stderr, fmt, ap);
}

int sl_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "; try 'scope-likwid %s%s--help'\n", cmd ? cmd : "", cmd ? " " : "");
    return SL_EXIT_USAGE;
}

void sl_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(cmd, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int sl_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
              const struct option *longopts)
{
    opterr = 0;     /* getopt's own messages are two-part; ours are one line */
    int c = getopt_long(argc, argv, shortopts, longopts, NULL);
    if (c != '?' && c != ':')
        return c;
    const char *word = argv[optind - 1];
    if (c == ':') {
        sl_usage_error(cmd, "option '%s' needs a value", word);
    } else if (optopt && strncmp(word, "--", 2)) {
        sl_usage_error(cmd, "unknown option '-%c'", optopt);
    } else {
        const char *eq = strchr(word, '=');
        if (optopt && eq)
            sl_usage_error(cmd, "option '%.*s' takes no value", (int)(eq - word), word);
        else
            sl_usage_error(cmd, "unknown option '%s'", word);
    }
    return SL_OPT_BAD;
}

int sl_operands(const char *cmd, int argc, char **argv, int min, int max, const char *what)
{
    int n = argc - optind;
    if (n < min) {
        sl_usage_error(cmd, "missing %s", what);
        return -1;
    }
    if (n > max) {
        sl_usage_error(cmd, "too many operands ('%s'): expected %s", argv[optind + max], what);
        return -1;
    }
    return n;
}
