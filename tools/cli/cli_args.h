/* Internal header: not installed. How every subcommand reads its words and
 * reports a usage error: getopt_long with one-line messages
 * "scope-likwid: CMD: what is wrong; try 'scope-likwid CMD --help'". */
#ifndef SL_CLI_ARGS_H
#define SL_CLI_ARGS_H

#include <getopt.h>

/* Prints the usage error (cmd NULL: the top level) on stderr; returns
 * SL_EXIT_USAGE. */
int sl_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "scope-likwid: CMD: MSG" (cmd NULL: no CMD part) on stderr: bad
 * input, a failed write. */
void sl_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

enum { SL_OPT_END = -1, SL_OPT_BAD = '?' };

/* getopt_long over argv (argv[0]: the subcommand's name) with the CLI's
 * messages. shortopts starts with ':' (and '+' first to stop at the first
 * operand). Returns the option, SL_OPT_END after the options (operands from
 * optind), or SL_OPT_BAD after printing the usage error (unknown option,
 * missing value). */
int sl_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
              const struct option *longopts);

/* The operands after the options: exactly n (min..max) or a usage error.
 * Returns the number found, or -1 after printing the error. */
int sl_operands(const char *cmd, int argc, char **argv, int min, int max, const char *what);

#endif
