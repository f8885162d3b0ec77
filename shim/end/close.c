/* end/close.c: from close.c. */
#include "end.h"
#include "diag.h"
#include "fileio.h"
#include "likwid_version.h"
#include "markerfile.h"
#include "name_fit.h"
#include "parse_int.h"
#include "trusted_dir.h"
#include "wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

void sl_deliver_in_from(const sl_state *g, sl_deliver_in *in)
{
    *in = (sl_deliver_in){.output = g->output, .pid = g->pid, .parent_pid = g->parent_pid,
                          .mpi = g->mpi, .rank = g->rank,
                          .origin_unix_ns = g->origin_unix_ns, .writer = g->cfg.writer,
                          .timeout_s = g->cfg.timeout_s};
}

/* Why there are no counters, for the status text. */
void sl_not_counting(const sl_state *g, const sl_real_api *r, sl_text *status)
{
    if (!r->close)
        sl_text_add(status, "LIKWID not counting (the application is not linked with LIKWID); "
                            "timing only");
    else
        sl_text_add(status, "LIKWID not counting (%s); timing only",
                    g->not_counting ? g->not_counting : "LIKWID_FILEPATH not set");
}

/* What LIKWID yields, with the status text; g read only. */
static void counters(const sl_state *g, const sl_real_api *r, const char *markerpath,
                     int64_t group, int by_group, sl_likwid *lw, sl_text *status)
{
    int counting = g->counting && r->close && markerpath;
    sl_likwid snap;
    sl_likwid_init(&snap);
    const char *snap_why = NULL;
    if (counting && (g->cfg.sources & SL_SRC_MARKER_API))
        snap_why = sl_snapshots_take(r, group, by_group, &snap);
    if (r->close)
        r->close();
    if (!counting) {
        sl_not_counting(g, r, status);
    } else {
        char *lib = sl_real_library(r);
        sl_sources_in in = {.markerfile = markerpath, .sources = g->cfg.sources,
                            .collector = g->cfg.collector, .liblikwid = lib,
                            .timeout_s = g->cfg.timeout_s, .snap_why = snap_why};
        sl_sources_collect(&in, &snap, lw, status);
        free(lib);
    }
    sl_likwid_free(&snap);
}



static void close_run(void);

void sl_close_run(void)
{
    sl_with_room(close_run);
}

static void close_run(void)
{
    if (!sl_close_claim()) {
        sl_close_await();   /* a second Close, from any thread: answered here */
        return;
    }
    sl_close_delivering(1);
    sl_exit_superseded();   /* a Close from an exit handler replaces the exit hook's result */
    const sl_state *g = &sl_g;
    int ng = g->ngroups > 0 ? g->ngroups : 1;
    int64_t group = atomic_load(&sl_next_group_calls) % ng;
    /* LIKWID 5.5 keeps every thread's regions in group 0 whatever
     * NextGroup switched to: its GetRegion answers from those */
    char version[32];
    sl_real_likwid_version(sl_cycle_api(), version, sizeof version);
    int by_group = sl_likwid_minor(version) < 5;
    if (!by_group)
        group = 0;
    sl_likwid lw;
    sl_likwid_init(&lw);
    const sl_real_api *r = sl_cycle_api();
    const char *markerpath = sl_env_likwid_filepath();
    if (sl_batch_defer(g, g->counting && r->close && markerpath)) {
        /* Nothing to count, and this cycle's calls wait in the tables for
         * the batch's delivery (below, "cycle"), and on disk in the batch
         * file meanwhile. LIKWID closes as without the shim. */
        if (r->close)
            r->close();
        sl_fork_deliver_parent();
        sl_cycle_close_done();
        sl_close_delivering(0);
        return;
    }
    sl_text status = {0};
    sl_batch_status(g, &status);
    counters(g, r, markerpath, group, by_group, &lw, &status);
    sl_deliver_in in;
    sl_deliver_in_from(g, &in);
    if (strcmp(version, "unknown") != 0)
        in.likwid_version = version;
    int saved = sl_deliver(&in, &lw, status.s ? status.s : "") == 0;
    free(status.s);
    sl_likwid_free(&lw);
    if (saved)
        sl_survive_end_saved();    /* else the journal is the last copy: it stays */
    sl_batch_delivered(saved);
    sl_fork_deliver_parent();
    sl_cycle_close_done();
    sl_close_delivering(0);
}
