/* Internal header: not installed. The command-line words that the
 * one-FILE subcommands (show, export, plot) read alike. */
#ifndef SL_CLI_ARGS_H
#define SL_CLI_ARGS_H

enum {
    SL_ARG_TAKEN = -1,      /* handled: go on with the next word */
    SL_ARG_OPTION = -2,     /* an option for the caller to parse */
};

/* Reads word a of subcommand cmd: an operand ("-" alone, no leading '-',
 * or any word after "--") becomes *path (a second one is a usage error);
 * "--" sets *only_operands; -h/--help prints usage on stdout. Returns
 * SL_ARG_TAKEN, SL_ARG_OPTION, or the exit code to return now
 * (SL_EXIT_OK after the help, SL_EXIT_USAGE). */
int sl_arg_common(const char *cmd, const char *usage, const char *a, int *only_operands,
                  const char **path);

#endif
