/* Internal header: not installed. The shim's group say/: what the shim says: the log, run's report. */
#ifndef SL_SAY_H
#define SL_SAY_H

#include "objects.h"
#include <stddef.h>

#pragma GCC visibility push(hidden)

/* The shim's messages: stderr, prefix
 * "scope-likwid: ", one line each written with a single write(2) so they never
 * interleave with the application's stdio. Values from the environment are
 * only ever passed as arguments, never as the format. */
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

/* `scope-likwid run` sets SCOPE_LIKWID_RUN_REPORT to a file it created and
 * reads after the application: each process appends "KIND\tPID\tPATH\n"
 * for its result's name and its journal at Init ("init", "journal"), the
 * result it wrote ("wrote"), the rescue file it left ("rescue") and the
 * file of a batch of Init..Close cycles ("batch"), so run names exactly
 * these files. */
/* Takes the variable (at Init; read with secure_getenv). */
void sl_run_report_take(const char *path);
/* Before a change of user (face/user_change.c): the file held open from now on,
 * for this process and its forked children (run's user's file). */
void sl_run_report_hold(void);
/* Appends one line when the variable named a file at Init; never creates
 * it; errno kept; async-signal-safe (the signal handler reports its result). */
void sl_run_report(const char *kind, const char *path);

#pragma GCC visibility pop

#endif
