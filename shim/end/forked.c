/* Forked children: the atfork handler, a child's adoption at its first
 * timed call, the journals a parent or a child left undelivered. */

#include "end.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>

/* A process forked after Init (docs/SHIM.md, "Forked children"). The child
 * is a process of its own: when it times regions it gets its own result
 * file ("<parent's output stem>.pid<PID>.h5", parent_pid set), its own
 * journal and empty tables. The parent's timing stays the parent's: the
 * child never writes into the parent's journal (shared with it: MAP_SHARED)
 * nor into its tables. A parent that ended after the fork without
 * delivering (the daemon pattern: fork, then _exit in the parent) leaves
 * its journal; its child turns it into the parent's result at its own
 * Close or exit, once it has seen the parent end (it was reparented).
 *
 * Nothing is done in the child before it times: the atfork handler only
 * forgets the tables and marks the mode FORKED (not ACTIVE: the hot path
 * takes its cold branch), and the first Init, ThreadInit, Register or
 * Start adopts the child (sl_fork_adopt). A child that never times (it
 * execs, or only passes through) writes nothing. The hot path is as
 * before: no pid check in Start or Stop. */
static void atfork_child(void)
{
    int m = atomic_load(&sl_mode);
    if (m == SL_MODE_ACTIVE) {
        sl_rt_fork_child();
        atomic_store(&sl_mode, SL_MODE_FORKED);
    } else if (m == SL_MODE_CLOSED) {
        /* Forked during or after Close: the parent's run is over. The child
         * passes through as one that never called Init, until it calls
         * Init itself (a driver that profiled its setup, closed, and forks
         * workers that time their own Init..Close): then it is adopted. */
        sl_rt_fork_child();
        atomic_store(&sl_mode, SL_MODE_FORKED_CLOSED);
    }
}

/* Children that end without delivering. A child that times ends, like
 * any process, at its Close, exit hook or signal handler; one that ends
 * with _exit (a multiprocessing pool's worker: os._exit after its last
 * task) leaves its journal. Each adopted child notes its pid and journal
 * in a small table shared by every process forked after Init (MAP_SHARED
 * at the first Init, before any fork); at its own Close or exit the parent
 * turns the journals of its children that ended meanwhile into their
 * results (scope-likwid-write --child), and names those of children still
 * running. */
#define KIN_SLOTS 64
#define KIN_PATH 500

typedef struct kin_slot {
    _Atomic pid_t pid;          /* 0: free */
    pid_t parent;
    _Atomic int ready;          /* journal filled in */
    char journal[KIN_PATH];
} kin_slot;

static kin_slot *kin;

void sl_fork_arm(void)
{
    static int armed;
    if (!armed && pthread_atfork(NULL, NULL, atfork_child) == 0)
        armed = 1;
    if (!kin) {
        void *p = mmap(NULL, KIN_SLOTS * sizeof(kin_slot), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        kin = p == MAP_FAILED ? NULL : p;
    }
}

/* In an adopted child, once its journal exists. */
static void kin_register(void)
{
    const char *j = sl_journal_path();
    size_t n = strlen(j);
    if (!kin || n == 0 || n >= KIN_PATH)
        return;
    for (int i = 0; i < KIN_SLOTS; i++) {
        pid_t free_slot = 0;
        if (!atomic_compare_exchange_strong(&kin[i].pid, &free_slot, sl_g.pid))
            continue;
        kin[i].parent = sl_g.parent_pid;
        memcpy(kin[i].journal, j, n + 1);
        atomic_store(&kin[i].ready, 1);
        return;
    }
}

static void kin_free(kin_slot *k)
{
    atomic_store(&k->ready, 0);
    atomic_store(&k->pid, 0);
}

/* Whether process pid has ended: gone, or a zombie its parent has not
 * reaped yet (its journal is final either way). */
static int ended(pid_t pid)
{
    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    char state = sl_proc_state(pid);
    return state == 'Z' || state == 'X';
}

/* scope-likwid-write MODE JOURNAL PID (--child, --orphan): the path it
 * wrote (newly allocated), or NULL with *why (newly allocated, may be
 * NULL) saying what failed. */
static char *journal_writer(const char *mode, const char *journal, pid_t pid, char **why)
{
    char *missing = NULL;
    char *writer = sl_helper_path(sl_g.cfg.writer, "scope-likwid-write", &missing);
    *why = missing;
    if (!writer)
        return NULL;
    char num[24];
    snprintf(num, sizeof num, "%lld", (long long)pid);
    const char *argv[] = {writer, mode, journal, num, NULL};
    sl_spawn_result res = {0};
    sl_helper_run(argv, sl_g.cfg.timeout_s + 2, &res);
    char *last = res.outcome == SL_SPAWN_EXITED && res.exit_code == 0
                     ? sl_last_line(res.out, res.out_len)
                     : NULL;
    const char *not_ours = last && *last ? sl_proof_check(last, res.out, res.out_len) : NULL;
    if (not_ours) {
        free(last);
        last = NULL;
        if (asprintf(why, "named a file that is not a result it wrote: %s", not_ours) < 0)
            *why = NULL;
    } else if (!last || !*last) {
        free(last);
        last = NULL;
        *why = sl_spawn_describe(&res, sl_g.cfg.timeout_s + 2);
    }
    sl_spawn_result_free(&res);
    free(writer);
    return last;
}

/* At this process's Close or exit: its children's journals. */
static void deliver_children(void)
{
    pid_t me = getpid();
    for (int i = 0; kin && i < KIN_SLOTS; i++) {
        kin_slot *k = &kin[i];
        pid_t child = atomic_load(&k->pid);
        if (!child || child == me || !atomic_load(&k->ready))
            continue;
        if (k->parent != me)
            continue;
        struct stat st;
        if (stat(k->journal, &st) != 0) {
            kin_free(k);    /* delivered by the child itself */
            continue;
        }
        if (!ended(child)) {
            sl_log_warn("process %lld (forked from this one) still runs: if it ends without "
                        "likwid_markerClose, recover its timing with 'scope-likwid recover %s'",
                        (long long)child, k->journal);
            continue;
        }
        char *why = NULL;
        char *last = journal_writer("--child", k->journal, child, &why);
        if (last)
            sl_log_info("wrote %s (the timing of process %lld, forked from this one, which ended "
                        "without likwid_markerClose)", last, (long long)child);
        else if (stat(k->journal, &st) == 0)
            sl_log_warn("process %lld (forked from this one) ended without likwid_markerClose; "
                        "its journal %s could not be turned into its result (writer %s): "
                        "recover it with 'scope-likwid recover %s'", (long long)child,
                        k->journal, why ? why : "not found", k->journal);
        free(last);
        free(why);
        kin_free(k);
    }
}

int sl_fork_adopt(void)
{
    int m = SL_MODE_FORKED;
    if (!atomic_compare_exchange_strong(&sl_mode, &m, SL_MODE_ADOPTING)) {
        /* Another thread of the child adopts it: wait for the outcome. */
        while ((m = atomic_load(&sl_mode)) == SL_MODE_ADOPTING)
            sched_yield();
        return m;
    }
    pid_t self = getpid();
    char *out = sl_output_derived(sl_g.output, "pid", self);
    const char *pj = sl_journal_path();
    char *parent_journal = pj[0] ? strdup(pj) : NULL;
    if (!out) {
        sl_log_warn("out of memory in a forked child (pid %lld): its calls pass through untimed",
                    (long long)self);
        free(parent_journal);
        atomic_store(&sl_mode, SL_MODE_PASS);
        return SL_MODE_PASS;
    }
    sl_journal_fork_forget();
    /* A grandchild: the journal its grandparent left is its parent's care. */
    free(sl_g.parent_journal);
    sl_g.parent_journal = parent_journal;
    sl_g.parent_pid = sl_g.pid;
    sl_g.pid = self;
    sl_name_result_fork(out);
    sl_g.cycle = 1;
    sl_cycle_fork_child();
    sl_close_rearm();
    atomic_store(&sl_next_group_calls, 0);
    sl_run_meta_start();
    sl_anchor_take(out);
    sl_survive_begin(out, self, sl_g.parent_pid, sl_g.mpi, sl_g.rank, sl_g.origin_unix_ns, sl_g.tsc,
                     sl_g.cfg.writer, sl_g.cfg.timeout_s);
    kin_register();
    sl_log_debug("forked child of process %lld: output %s", (long long)sl_g.parent_pid, out);
    atomic_store(&sl_mode, SL_MODE_ACTIVE);
    return SL_MODE_ACTIVE;
}

static void deliver_parent(void);

void sl_fork_deliver_parent(void)
{
    if (getpid() != sl_g.pid)
        return;
    deliver_children();
    deliver_parent();
}

static void deliver_parent(void)
{
    char *journal = sl_g.parent_journal;
    if (!journal || getpid() != sl_g.pid)
        return;
    sl_g.parent_journal = NULL;     /* once */
    struct stat st;
    /* The parent still runs (its Close or exit delivers), or delivered. */
    if (getppid() == sl_g.parent_pid || stat(journal, &st) != 0) {
        free(journal);
        return;
    }
    char *why = NULL;
    char *last = journal_writer("--orphan", journal, sl_g.parent_pid, &why);
    if (last) {
        sl_log_info("wrote %s (the timing of process %lld, which ended after fork without "
                    "likwid_markerClose)", last, (long long)sl_g.parent_pid);
        sl_run_report("wrote", last);
    } else if (stat(journal, &st) == 0) {
        /* Not delivered by another child meanwhile: say where it is. */
        sl_log_warn("process %lld ended after fork without likwid_markerClose; its journal %s "
                    "could not be turned into its result (writer %s): recover it with "
                    "'scope-likwid recover %s'", (long long)sl_g.parent_pid, journal,
                    why ? why : "not found", journal);
    }
    free(last);
    free(why);
    free(journal);
}
