/* Internal header: not installed. The shim's messages: stderr, prefix
 * "scope-likwid: ", one line each written with a single write(2) so they never
 * interleave with the application's stdio. Values from the environment are
 * only ever passed as arguments, never as the format. */
#ifndef SL_SHIM_LOG_H
#define SL_SHIM_LOG_H

#include <stddef.h>

/* verbose: debug lines on; quiet: warnings and the "wrote" line off. Which
 * file stderr is (device, inode) is remembered when the library is loaded: a
 * line is written only while fd 2 is still that file, and never raises
 * SIGPIPE. */
void sl_log_configure(int verbose, int quiet);
/* Takes fd 2 as it is now as the stderr to write to: the library
 * constructor's step (a test that moves fd 2 in-process calls it again). */
void sl_log_take_stderr(void);
int sl_log_verbose(void);

/* A warning; each distinct text is printed at most once per process. */
void sl_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An informational line (silenced by quiet). */
void sl_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A debug line (only with verbose). */
void sl_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A line already formatted ("scope-likwid: ...\n"), written as the others
 * (silenced by quiet); async-signal-safe, for the signal handler. */
void sl_log_line_raw(const char *line, size_t n);

#endif
