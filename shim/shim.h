/* Internal header: not installed. The shim's state and the one internal path
 * that the C and the Fortran entry points share. */
#ifndef SL_SHIM_SHIM_H
#define SL_SHIM_SHIM_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "marker_fns.h"

enum sl_mode {
    SL_MODE_IDLE = 0,   /* before likwid_markerInit: pass-through */
    SL_MODE_ACTIVE,     /* timing, hazards answered */
    SL_MODE_CLOSED,     /* after Close (or exit): everything answered by the shim */
    SL_MODE_PASS,       /* SCOPE_LIKWID_DISABLE=1, or forked after Close: pass-through */
    SL_MODE_FORKED,     /* a child forked while ACTIVE, not timing yet (fork.c) */
    SL_MODE_ADOPTING,   /* that child becoming ACTIVE with its own file and journal */
};

typedef struct sl_state {
    sl_config cfg;
    pid_t pid;                  /* the process that times: the only one that writes */
    pid_t parent_pid;           /* a forked child: the process it was forked from; else 0 */
    char *parent_journal;       /* a forked child: the journal its parent had at the fork */
    int tsc;                    /* the hot path's clock is the TSC */
    int mpi;                    /* a rank variable was set */
    int64_t rank;               /* 0 outside MPI */
    char *output;               /* absolute path of the result file */
    int64_t origin_unix_ns;     /* CLOCK_REALTIME - CLOCK_MONOTONIC at Init */
    int counting;               /* LIKWID_FILEPATH/MODE/EVENTS/THREADS all set */
    char *not_counting;         /* why not ("LIKWID_FILEPATH not set: ..."), or NULL */
    int ngroups;                /* '|'-separated sets in LIKWID_EVENTS */
    int cycle;                  /* Init..Close cycle, 1 for the first (cycle.c) */
    char *first_output;         /* the first cycle's result file; later ones derive theirs */
} sl_state;

extern sl_state sl_g;
extern _Atomic int sl_mode;
extern _Atomic int sl_in_real_init;     /* LIKWID's Init running (it may exit()) */
extern _Atomic int sl_next_group_calls;

/* The internal path behind each entry point (marker.c): sl_shim_<member>
 * for every row of SL_MARKER_FNS. */
#define SL_SHIM_DECL(cname, member, ret, params, args, fname, fshape) ret sl_shim_##member params;
SL_MARKER_FNS(SL_SHIM_DECL)
#undef SL_SHIM_DECL

/* close.c: the Close sequence. sl_close_claim: 1 for the one caller (Close
 * or the exit hook) that finishes the cycle, which it marks CLOSED; 0 for
 * every later one. sl_deliver_in_from: the writer's inputs from g. */
struct sl_deliver_in;
void sl_close_run(void);
int sl_close_claim(void);
void sl_close_rearm(void);          /* a new cycle may be closed again */
void sl_deliver_in_from(const sl_state *g, struct sl_deliver_in *in);

/* exit_hook.c: the exit path without Close. sl_exit_hook_arm (at Init)
 * registers the early hook, an atexit handler that writes the result before
 * the application's earlier exit handlers and static destructors run;
 * sl_close_at_exit is the library destructor's part when the early hook
 * did not run. A Close after the early hook (from such a handler or
 * destructor) calls sl_exit_superseded, which removes the early result. */
void sl_exit_hook_arm(void);
void sl_close_at_exit(void);
void sl_exit_superseded(void);
/* wrap_exec.c, before and after (it failed) the real exec: the result of
 * the image so far is delivered (what: the program, for the status), and
 * removed again when the exec returns. Both keep errno. */
void sl_exec_begin(const char *what);
void sl_exec_failed(const char *what);

/* fork.c: the atfork handler (registered at Init); the child's adoption,
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

#endif
