/* Internal header: not installed. The shim's side of the crash-safe journal
 * (core/journal/journal.h has the format): created at Init next to the result file
 * (else in $TMPDIR or /tmp), mapped MAP_SHARED; the region table puts its
 * per-thread tables, entries and sample arenas in it, so the hot path
 * writes into the file without a system call. Close removes the file (the
 * mapping stays: the tables live in it). */
#ifndef SL_SHIM_JOURNAL_MAP_H
#define SL_SHIM_JOURNAL_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "journal.h"

typedef struct sl_journal_in {
    const char *output;         /* the result file: the journal is "<output>.journal" */
    pid_t pid;
    pid_t parent_pid;           /* a forked child's parent, else 0 */
    int mpi;
    int64_t rank;
    int64_t origin_unix_ns;
    int tsc;                    /* the hot path stores TSC ticks */
    size_t bytes;               /* 0: the default size */
} sl_journal_in;

/* Creates and maps the journal; 0, or -errno (then nothing is journaled and
 * everything works as before; the caller warns). */
int sl_journal_begin(const sl_journal_in *in);
/* The journal's path ("" when there is none, or after sl_journal_end). */
const char *sl_journal_path(void);

/* An object of `bytes` in a new record of `kind` (zeroed, backed on disk),
 * owned by the object `owner` (a thread's, or NULL); NULL when there is no
 * journal or no room. The record counts for readers once sl_journal_commit
 * is called. */
void *sl_journal_alloc(int kind, size_t bytes, const void *owner);
void sl_journal_commit(void *obj);

/* Close (or the exit hook) could save nothing: the journal is what is left. */
void sl_journal_mark_unsaved(void);
/* The rescue file exists and the writer is about to run on it: when the
 * process dies now, an orphaned writer may still deliver the result, and
 * recover must not make a second one (it checks the rescue file). */
void sl_journal_mark_delivering(const char *rescue);
/* A thread's table (entry 0) or a region's entry of a thread in the
 * journal (entry 1) could not be put in the journal (full): counted there. */
void sl_journal_note_outside(int entry);

/* The descriptor table is full: gives the journal's kept descriptor up
 * (later pieces reopen the file by its path). 1 when one was closed. */
int sl_journal_spare_fd(void);

/* In a forked child that times regions of its own: the parent's journal
 * (shared with the parent, MAP_SHARED) is never touched again; the child
 * begins its own with sl_journal_begin. */
void sl_journal_fork_forget(void);

/* A terminating signal arrived (async-signal-safe: two stores). */
void sl_journal_mark_signal(int sig);
/* The result was delivered: mark it and remove the file. */
void sl_journal_end(void);

#endif
