/* Internal header: not installed. The subcommands of `scope-likwid`; each
 * gets argv starting at its own name and returns the process exit code. */
#ifndef SL_CMDS_H
#define SL_CMDS_H

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

/* Prints "scope-likwid: <msg>" and the hint to --help on stderr; returns
 * SL_EXIT_USAGE. */
int sl_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a decimal int64 (whole string). 0 or -EINVAL. */
int sl_parse_i64(const char *s, long long *out);

#endif
