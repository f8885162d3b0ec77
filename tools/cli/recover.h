/* Internal header: not installed. Turning a journal left by a process that
 * never reached Close into its result file (cmd_recover.c). */
#ifndef SL_RECOVER_H
#define SL_RECOVER_H

/* Recovers one journal: never touches the journal of a live process;
 * writes the result (marked partial, with what was in flight and why) and
 * removes the journal; a journal whose result was delivered is removed.
 * why: what the caller knows about the end (e.g. "killed by signal 9"),
 * NULL: what the journal says. Messages on stderr ("scope-likwid: ...").
 * 0: recovered or nothing to do; 1: failed (the journal is kept);
 * SL_RECOVER_SKIPPED: not a journal recover may act on (said). */
int sl_recover_journal(const char *path, const char *why);
#define SL_RECOVER_SKIPPED 2

/* ---- whose journal, as whom, where its result goes (recover_owner.c) ---- */

/* Names derived from a journal's location, never from its header:
 * "D/X.journal" has the stem "D/X" and the result "D/X" ("D/X.h5" when X
 * does not end in .h5), D absolute. */
typedef struct sl_jrn_place {
    char *dir, *stem, *output;
} sl_jrn_place;
void sl_jrn_place_free(sl_jrn_place *p);

/* The rescue file a journal's header names, when it is one in the
 * journal's directory named after the journal (as the shim names it:
 * "<stem>.rescue", "<stem>.<K>.rescue"): its name in that directory, newly
 * allocated; else NULL. */
char *sl_recover_rescue_ok(const sl_jrn_place *p, const char *rescue);

/* Whether the header's output names the result place->output. */
int sl_recover_same_output(const sl_jrn_place *p, const char *output);

/* What recover does with one journal, once it may. */
typedef int (*sl_recover_fn)(const char *path, const char *why, const sl_jrn_place *place);

/* Runs fn on the journal at path when recover may act on it: a regular
 * file (opened without following a link or waiting on a FIFO), its
 * owner's, in a directory only its owner (or root) can change; run by root,
 * as its owner in a child process. One line and SL_RECOVER_SKIPPED
 * otherwise; fn's value, or 1. */
int sl_recover_guarded(const char *path, const char *why, sl_recover_fn fn);

/* Turns a rescue file into the result file output (or the name next to it
 * that is free: *written, to free); 0 or -errno, messages of the rescue
 * file's problems on stderr. The rescue file is left to the caller. */
int sl_rescue_to_result(const char *rescue, const char *output, char **written);

#endif
