/* Internal header: not installed. Turning a journal left by a process that
 * never reached Close into its result file (cmd_recover.c). */
#ifndef SL_RECOVER_H
#define SL_RECOVER_H

/* Recovers one journal: never touches the journal of a live process;
 * writes the result (marked partial, with what was in flight and why) and
 * removes the journal; a journal whose result was delivered is removed.
 * why: what the caller knows about the end (e.g. "killed by signal 9"),
 * NULL: what the journal says. Messages on stderr ("scope-likwid: ...").
 * 0: recovered or nothing to do; 1: failed (the journal is kept). */
int sl_recover_journal(const char *path, const char *why);

/* Turns a rescue file into the result file output (or the name next to it
 * that is free: *written, to free); 0 or -errno, messages of the rescue
 * file's problems on stderr. The rescue file is left to the caller. */
int sl_rescue_to_result(const char *rescue, const char *output, char **written);

#endif
