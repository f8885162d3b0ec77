/* Internal header: not installed. The shim's group journal/: the journal file: its pieces, space, marks, a later cycle's copy, its
 * first record. */
#ifndef SL_JOURNAL_MAP_H
#define SL_JOURNAL_MAP_H

#include "ground.h"
#include "journal.h"
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include "provenance.h"

#pragma GCC visibility push(hidden)

/* The shim's side of the crash-safe journal
 * (core/journal/journal.h has the format): created at Init next to the result file
 * (else in $TMPDIR or /tmp), mapped MAP_SHARED; the region table puts its
 * per-thread tables, entries and sample arenas in it, so the hot path
 * writes into the file without a system call. Close removes the file (the
 * mapping stays: the tables live in it). */
typedef struct sl_journal_in {
    const char *output;         /* the result file: the journal is "<output>.journal" */
    pid_t pid;
    pid_t parent_pid;           /* a forked child's parent, else 0 */
    int mpi;
    int64_t rank;
    int64_t origin_unix_ns;
    int tsc;                    /* the hot path stores TSC ticks */
    size_t bytes;               /* 0: the default size */
    const sl_provenance *prov;  /* where it runs (NULL: unknown) */
    const char *run_id;         /* NULL: unknown */
} sl_journal_in;

/* Creates and maps the journal; 0, or -errno (then nothing is journaled and
 * everything works as before; the caller warns). */
int sl_journal_begin(const sl_journal_in *in);
/* A later Init..Close cycle's journal (its Init, no thread timing): the
 * pieces of the journal the last Close ended (removed, still mapped: the
 * tables live in them) are copied into a new file for in->output and
 * mapped from it at the same addresses, and the header names the cycle;
 * the threads and regions found outside its pieces are counted as outside
 * it. 0; -ENOENT when the process had no journal (none now either), or
 * -errno. */
int sl_journal_renew(const sl_journal_in *in, int64_t cycle, int64_t outside_tables,
                     int64_t outside_entries);
/* Whether p lies in one of the journal's pieces. */
int sl_journal_holds(const void *p);
/* The journal goes on through a batch of cycles (batch_first..cycle): its
 * header says so, for the status of its result and for the batch file
 * that result replaces. */
void sl_journal_note_cycles(int64_t batch_first, int64_t cycle);
/* The journal's path ("" when there is none, or after sl_journal_end). */
const char *sl_journal_path(void);

/* An object of `bytes` in a new record of `kind` (zeroed, backed on disk),
 * owned by the object `owner` (a thread's, or NULL); NULL when there is no
 * journal or no room. The record counts for readers once sl_journal_commit
 * is called. */
void *sl_journal_alloc(int kind, size_t bytes, const void *owner);
void sl_journal_commit(void *obj);

/* The journal's first record: the run's /metadata as known now, at Init
 * (journal.h, SL_JRN_META; note.c). mpi: the process is an MPI
 * rank. Nothing is written when the journal has no room. */
void sl_journal_note_meta(int mpi);
/* Close (or the exit hook) could save nothing: the journal is what is left. */
void sl_journal_mark_unsaved(void);
/* The rescue file exists and the writer is about to run on it: when the
 * process dies now, an orphaned writer may still deliver the result, and
 * recover must not make a second one (it checks the rescue file). */
void sl_journal_mark_delivering(const char *rescue);
/* A thread's table (entry 0) or a region's entry of a thread in the
 * journal (entry 1) could not be put in the journal (full): counted there. */
void sl_journal_note_outside(int entry);

/* Before the process changes its user to uid (face/user_change.c), while it
 * may still: the journal is moved into dir (NULL: it stays), as
 * "<base of output>.<pid>.journal", and given to uid. 0, or -errno (EXDEV:
 * dir is on another file system; ENOENT: no journal). */
int sl_journal_give(uid_t uid, const char *dir, const char *output, pid_t pid);

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

/* Inside journal/: the journal's state, file.c's, shared with renew.c
 * (a later cycle's copy of the same pieces). */
#define MAX_PIECES 1024
struct mapped_piece {
    char *at;
    size_t off, len;
};
extern sl_jrn_header *jh;                   /* NULL: no journal */
extern size_t jsize;                        /* the most the file may grow to */
extern char jpath[PATH_MAX];
extern dev_t jdev;
extern ino_t jino;
extern int jfd;                             /* kept from Init; -1: closed */
extern _Atomic int jclosed;                 /* delivered: no more allocations */
extern pthread_mutex_t jlock;
extern size_t piece_off, piece_len;         /* where the next allocations come from (jlock) */
extern char *piece_at;
extern struct mapped_piece pieces[MAX_PIECES];  /* every piece mapped so far (jlock) */
extern size_t npieces;                      /* MAX_PIECES + 1: too many to renew */
/* A journal's name beside OUTPUT (dir NULL) or in dir; NULL: too long. */
char *sl_journal_name(const char *dir, const char *output, pid_t pid);
/* len bytes at off allocated on disk (SIGXFSZ held); 0 or -errno. */
int back(int fd, size_t off, size_t len);
/* fd kept as the journal's descriptor (st: its file). */
void keep_fd(int fd, const struct stat *st);

#pragma GCC visibility pop

#endif
