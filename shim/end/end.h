/* Internal header: not installed. The shim's group end/: the end of a cycle: Close, the exit hooks, exec, forked children; cycles
 * and batches; counters at Close; delivery (run record, rescue file, writer). */
#ifndef SL_END_H
#define SL_END_H

#include "signals.h"
#include "likwid_result.h"
#include "run.h"
#include "why.h"

#pragma GCC visibility push(hidden)

struct sl_deliver_in;
void sl_close_run(void);
void sl_deliver_in_from(const sl_state *g, struct sl_deliver_in *in);

/* ending.c: the exit path without Close. sl_exit_hook_arm (at Init)
 * registers the early hook, an atexit handler that writes the result before
 * the application's earlier exit handlers and static destructors run;
 * sl_close_at_exit is the library destructor's part when the early hook
 * did not run. A Close after the early hook (from such a handler or
 * destructor) calls sl_exit_superseded, which removes the early result. */
void sl_exit_hook_arm(void);
void sl_close_at_exit(void);
void sl_exit_superseded(void);
/* face/exec.c calls, before and after (it failed) the real exec: the result of
 * the image so far is delivered (what: the program, for the status), and
 * removed again when the exec returns. Both keep errno. */
void sl_exec_begin(const char *what);
void sl_exec_failed(const char *what);

/* forked.c: the atfork handler (registered at Init); the child's adoption,
 * at its first Init, ThreadInit, Register or Start while FORKED (returns
 * the mode now); after a child's own result was delivered, its parent's
 * journal when the parent ended without delivering it. */
void sl_fork_arm(void);
int sl_fork_adopt(void);
void sl_fork_deliver_parent(void);

/* cycle.c: Init after Close starts cycle N+1 (its own result file).
 * Called by Init in the initialising process while the mode is CLOSED and
 * the previous Close has finished; returns 1 when the new cycle may become
 * ACTIVE. */
int sl_cycle_begin(void);
/* LIKWID's functions for the current cycle: the real ones in every cycle,
 * as without the shim (LIKWID 5.2 to 5.4 start afresh at each Init). */
const struct sl_real_api *sl_cycle_api(void);
/* Close and the exit hook, when their cycle's result is delivered. */
void sl_cycle_close_done(void);
/* A forked child begins its cycle 1. */
void sl_cycle_fork_child(void);

/* status.c: the likwid_status text Close builds up, a heap sl_why
 * (core/why.h: "{0}" is an empty one): "a; b; c", one piece per source
 * tried and why it failed or was used. A piece is cut at 1 KiB; on ENOMEM
 * it is lost, not the text. */
void sl_status_add(sl_why *status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Where Close gets LIKWID's counters from,
 * best first: the collector helper (full_api: LIKWID's own reader in a
 * separate process), the shim's marker-file reader (marker_file), the
 * closing thread's GetRegion snapshots taken just before LIKWID's Close
 * (marker_api). Each step adds to the status text what it did and why. */
/* What the chain needs to know, passed in by Close. */
typedef struct sl_sources_in {
    const char *markerfile;     /* LIKWID_FILEPATH */
    unsigned sources;           /* SL_SRC_* bits allowed */
    const char *collector;      /* SCOPE_LIKWID_COLLECTOR, NULL: next to the shim */
    const char *liblikwid;      /* the application's liblikwid, NULL: unknown */
    double timeout_s;           /* the collector's deadline */
    const char *snap_why;       /* why there are no snapshots, NULL: none taken */
} sl_sources_in;

/* GetRegion of every region the calling thread started, for group `group`,
 * into snap (source marker_api when any). Before LIKWID's Close. LIKWID
 * 5.2 to 5.4 (by_group) add a region to what they write for a GetRegion
 * of one they do not have: a region the thread started in another group,
 * or any on a CPU other than its own (they keep regions per CPU). So
 * there only regions it started in `group`, and only when the thread is
 * bound to one CPU. NULL, or why nothing was taken. */
const char *sl_snapshots_take(const sl_real_api *r, int64_t group, int by_group,
                              sl_likwid *snap);

/* The chain after LIKWID's Close: fills lw (empty on entry) from the first
 * source that works; snap (the snapshots) is moved into lw when it is the
 * one. Returns 1 when lw holds counters. */
int sl_sources_collect(const sl_sources_in *in, sl_likwid *snap, sl_likwid *lw,
                       sl_why *status);

/* The steps, one file each. */
/* At each cycle's Init: notes LIKWID_FILEPATH's file as it is then, and
 * the time; sl_source_markerfile_ok judges the file at Close against it. */
void sl_markerfile_note_init(void);
int sl_source_markerfile_ok(const char *path, sl_why *status);
int sl_source_collector(const sl_sources_in *in, sl_likwid *lw, sl_why *status);
int sl_source_markerfile(const char *path, sl_likwid *lw, sl_why *status);

/* The end of every path that yields a result
 * (Close, the exit hook): the run record is filled, saved as a rescue file,
 * and the writer helper turns it into the result file. */
/* The process and the destination, fixed at Init; passed in by the caller. */
typedef struct sl_deliver_in {
    const char *output;         /* absolute path of the result file */
    pid_t pid;
    pid_t parent_pid;           /* a forked child's parent, else 0 */
    int mpi;                    /* a rank variable was set */
    int64_t rank;               /* 0 outside MPI */
    int64_t origin_unix_ns;     /* CLOCK_REALTIME - CLOCK_MONOTONIC at Init */
    const char *writer;         /* SCOPE_LIKWID_WRITER, NULL: next to the shim */
    double timeout_s;           /* the writer's base deadline */
    const char *likwid_version; /* of the application's liblikwid (Close), NULL: unknown */
    sl_spawn_job *early;        /* the writer started at Close, awaiting its data, or NULL */
} sl_deliver_in;

/* record.c: fills run with the process's identity, its LIKWID_*
 * variables, the region timing of every thread (sl_rt_collect), the counters
 * (moved out of lw) and the status text. */
void sl_run_record_fill(sl_run *run, const sl_deliver_in *in, sl_likwid *lw,
                        const char *status);

/* deliver.c: record, rescue file, writer; one "wrote" line or one warning
 * that names what is left (the rescue file and the convert command).
 * 0 when the result or the rescue file exists, -1 when nothing was saved. */
int sl_deliver(const sl_deliver_in *in, sl_likwid *lw, const char *status);

/* The same, for a result that a later one may replace (the exit hook's,
 * ending.c): the "wrote" line is left to the caller, and *out gets the
 * file left behind (newly allocated, the other NULL): the result file, or
 * the rescue file when the writer failed (then the warning was printed). */
typedef struct sl_delivered {
    char *written;
    char *rescue;
} sl_delivered;
int sl_deliver_keep(const sl_deliver_in *in, sl_likwid *lw, const char *status,
                    sl_delivered *out);

/* The rescue file: the whole run in the wire
 * format, saved by the application's process before the writer helper is
 * started, so that nothing the writer does (crash, hang, missing HDF5) can
 * lose the data: "scope-likwid convert" turns it into the result file. */
/* Saves run as "<output>.rescue", else "$TMPDIR/<base>.<pid>.<k>.rescue",
 * else the same in /tmp; created exclusively, never through a symlink.
 * Returns the path (newly allocated), or NULL with the first reason in why. */
char *sl_rescue_write(const sl_run *run, const char *output, pid_t pid, char *why,
                      size_t why_len);

/* The run's metadata (core/run.h
 * sl_run_meta, written as /metadata): its start is taken at Init, the rest
 * at Close. */
/* Called once from Init: CLOCK_MONOTONIC now is the run's start_time_ns. */
void sl_run_meta_start(void);
/* Called at Close, after the run's timing and mpi_rank are filled: the
 * launcher's world size, OpenMP threads, start and finalize times, working
 * directory, user and SLURM_* variables. Allocates (Close time); a failure
 * leaves a field unknown. */
void sl_run_meta_fill(sl_run *run);

/* cycle.c */
/* Batches of cycles where LIKWID does not count (below, "cycle"):
 * sl_batch_defer, at Close of cycle g->cycle: 1 when it joins the pending
 * batch and writes only the batch file; sl_batch_status: the status's cycle
 * part ("cycle N", or "cycles A to N" with a batch pending);
 * sl_batch_delivered: the pending batch went with the result just delivered
 * (saved: 0 when nothing could be saved, and the batch file stays);
 * sl_batch_file_saved: a result of the running cycle, written at the end of
 * the process or an exec, holds the batch too: its file goes. */
int sl_batch_defer(const sl_state *g, int counting);
void sl_batch_status(const sl_state *g, sl_why *status);
void sl_batch_delivered(int saved);
void sl_batch_file_saved(void);
/* counters.c: why there are no counters, for the status text; LIKWID's
 * counters at Close (snapshots, LIKWID's Close, the source chain). */
void sl_not_counting(const sl_state *g, const sl_real_api *r, sl_why *status);
void sl_counters_at_close(const sl_state *g, const sl_real_api *r, const char *markerpath,
                          int64_t group, int by_group, sl_likwid *lw, sl_why *status);
/* cycle.c: the pending batch's ending, under the cycle's lock (see cycle.c). */
int sl_batch_lock_pending(const char *why, sl_why *status);
void sl_batch_end_pending(int saved);
void sl_batch_unlock(void);

/* deliver.c: the writer started at the start of a counting Close with the
 * collector (job), to be handed the rescue file; 1: started. */
int sl_early_writer(const sl_state *g, int counting, sl_spawn_job *job);

/* ending.c: what differs between the endings that deliver from the
 * process's own memory; every one runs sl_end_cycle, the one tail. */
typedef struct sl_ending {
    int close;              /* Close: the early result superseded, LIKWID's counters collected
                             * (or the cycle deferred into the batch), batch_delivered */
    int delivering;         /* a second Close waits for this one (Close, the late exit hook);
                             * else only a signal waits (sl_signals_finishing) */
    const char *why;        /* the status's own piece (exec); NULL: the exit's text */
    sl_why *held_batch;    /* the pending batch's own ending: its status, built under the
                             * cycle's lock the caller holds; batch_end before survive end */
    int keeps_batch;        /* the result holds the pending batch too: its file goes if saved */
    sl_delivered *keep;     /* early exit, exec: what a later result may replace (no "wrote"
                             * line); NULL: sl_deliver prints it */
    int fork_parent;        /* the forked children's and the parent's journals */
    int count_done;         /* the cycle counted done (Close, the late exit hook) */
} sl_ending;
/* 1 when something was saved. */
int sl_end_cycle(const sl_ending *e);
/* ending.c: the journal goes once something is saved (survive end). */
void sl_survive_end_saved(void);
/* rescue.c: run written to path (exclusive, owner-only), SIGXFSZ held. */
int sl_rescue_write_held(const char *path, const sl_run *run);

/* ending.c: the late exit hook, from the library's destructor (after the
 * application's atexit handlers and static destructors). */
void sl_end_at_unload(void);

#pragma GCC visibility pop

#endif
