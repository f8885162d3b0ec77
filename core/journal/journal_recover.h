/* Internal header: not installed. What `scope-likwid recover` and the
 * writer's journal mode (the shim's signal handler) share when they turn a
 * journal into a result: the reader's clock pair, the partial status text,
 * the header's state. */
#ifndef SL_JOURNAL_RECOVER_H
#define SL_JOURNAL_RECOVER_H

#include <stddef.h>
#include <stdint.h>

#include "journal.h"

/* A (TSC, CLOCK_MONOTONIC) pair of this moment, boot id into boot (cap >= 48). */
sl_jrn_clock sl_jrn_reader_clock(char *boot, size_t cap);

/* "partial: recovered from the journal by BY: the process CAUSE; in flight:
 * N regions open[: ...]; no counter data". why: the caller's words for the
 * end ("was killed by signal 9 (Killed)"), NULL: what the journal says.
 * Newly allocated; NULL on ENOMEM. */
char *sl_jrn_partial_status(const sl_jrn_info *info, const char *by, const char *why);

/* Sets the header's state field in the file itself (best effort). */
void sl_jrn_set_state(const char *path, int32_t state);

/* Once a batch's journal was turned into its result (or found delivered):
 * the batch file it replaces goes (and a half-written one). */
void sl_jrn_drop_batch_file(const sl_jrn_info *info);

#endif
