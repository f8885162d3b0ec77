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
#include "shim.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "log.h"
#include "name_fit.h"
#include "region_table.h"
#include "run_meta.h"
#include "journal_map.h"
#include "survive.h"

static void atfork_child(void)
{
    int m = atomic_load(&sl_mode);
    if (m == SL_MODE_ACTIVE) {
        sl_rt_fork_child();
        atomic_store(&sl_mode, SL_MODE_FORKED);
    } else if (m != SL_MODE_FORKED) {
        /* Forked during or after Close: the parent's run is over; the child
         * passes through as one that never called Init. */
        atomic_store(&sl_mode, SL_MODE_PASS);
    }
}

void sl_fork_arm(void)
{
    static int armed;
    if (!armed && pthread_atfork(NULL, NULL, atfork_child) == 0)
        armed = 1;
}

/* "<dir>/<stem>.pid<PID><.h5 or nothing>", kept within NAME_MAX. */
static char *child_output(const char *parent, pid_t pid)
{
    char suffix[40];
    size_t len = strlen(parent);
    int h5 = len > 3 && strcmp(parent + len - 3, ".h5") == 0;
    snprintf(suffix, sizeof suffix, ".pid%lld%s", (long long)pid, h5 ? ".h5" : "");
    char *stem = strndup(parent, h5 ? len - 3 : len);
    if (!stem)
        return NULL;
    char *out = sl_name_fit(stem, "", suffix);
    free(stem);
    return out;
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
    char *out = child_output(sl_g.output, self);
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
    /* The parent's names, in the child's copy of its heap. */
    if (sl_g.first_output != sl_g.output)
        free(sl_g.first_output);
    free(sl_g.output);
    sl_g.output = sl_g.first_output = out;
    sl_g.cycle = 1;
    sl_cycle_fork_child();
    sl_close_rearm();
    atomic_store(&sl_next_group_calls, 0);
    sl_run_meta_start();
    sl_survive_begin(out, self, sl_g.parent_pid, sl_g.mpi, sl_g.rank, sl_g.origin_unix_ns, sl_g.tsc,
                     sl_g.cfg.writer, sl_g.cfg.timeout_s);
    sl_log_debug("forked child of process %lld: output %s", (long long)sl_g.parent_pid, out);
    atomic_store(&sl_mode, SL_MODE_ACTIVE);
    return SL_MODE_ACTIVE;
}

void sl_fork_deliver_parent(void)
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
    char *missing = NULL;
    char *writer = sl_helper_path(sl_g.cfg.writer, "scope-likwid-write", &missing);
    char pid[24];
    snprintf(pid, sizeof pid, "%lld", (long long)sl_g.parent_pid);
    const char *argv[] = {writer, "--orphan", journal, pid, NULL};
    sl_spawn_result res = {0};
    if (writer)
        sl_helper_run(argv, sl_g.cfg.timeout_s + 2, &res);
    char *last = writer && res.outcome == SL_SPAWN_EXITED && res.exit_code == 0
                     ? sl_last_line(res.out, res.out_len)
                     : NULL;
    if (last && *last)
        sl_log_info("wrote %s (the timing of process %lld, which ended after fork without "
                    "likwid_markerClose)", last, (long long)sl_g.parent_pid);
    else if (stat(journal, &st) == 0)
        /* Not delivered by another child meanwhile: say where it is. */
        sl_log_warn("process %lld ended after fork without likwid_markerClose; its journal %s "
                    "could not be turned into its result (%s): recover it with 'scope-likwid "
                    "recover %s'", (long long)sl_g.parent_pid, journal,
                    writer ? "the writer failed" : missing ? missing : "writer not found",
                    journal);
    free(last);
    if (writer)
        sl_spawn_result_free(&res);
    free(writer);
    free(missing);
    free(journal);
}
