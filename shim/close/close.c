/* likwid_markerClose as the shim does it: snapshot, forward Close once,
 * collect LIKWID's results through the source chain (sources.h), then hand
 * the whole run to the writer (deliver.h). The process-wide state is read
 * here, once, and passed down explicitly. Nothing here may hurt the
 * application: every failure ends in a status text or a warning. */
#include "shim.h"

#include <stdlib.h>

#include "deliver.h"
#include "real.h"
#include "sources.h"
#include "survive.h"

static _Atomic int finishing;   /* Close or the exit path: whichever comes first */

int sl_close_claim(void)
{
    if (atomic_exchange(&finishing, 1))
        return 0;
    atomic_store(&sl_mode, SL_MODE_CLOSED);
    return 1;
}

void sl_close_rearm(void)
{
    atomic_store(&finishing, 0);
}

void sl_deliver_in_from(const sl_state *g, sl_deliver_in *in)
{
    *in = (sl_deliver_in){.output = g->output, .pid = g->pid, .parent_pid = g->parent_pid,
                          .mpi = g->mpi, .rank = g->rank,
                          .origin_unix_ns = g->origin_unix_ns, .writer = g->cfg.writer,
                          .timeout_s = g->cfg.timeout_s};
}

/* What LIKWID yields, with the status text; g read only. */
static void counters(const sl_state *g, const sl_real_api *r, const char *markerpath,
                     int64_t group, sl_likwid *lw, sl_text *status)
{
    int counting = g->counting && r->close && markerpath;
    sl_likwid snap;
    sl_likwid_init(&snap);
    if (counting && (g->cfg.sources & SL_SRC_MARKER_API))
        sl_snapshots_take(r, group, &snap);
    if (r->close)
        r->close();
    if (!r->close) {
        sl_text_add(status, "LIKWID not counting (the application is not linked with LIKWID); "
                            "timing only");
    } else if (!counting) {
        sl_text_add(status, "LIKWID not counting (%s); timing only",
                    g->not_counting ? g->not_counting : "LIKWID_FILEPATH not set");
    } else {
        sl_sources_in in = {.markerfile = markerpath, .sources = g->cfg.sources,
                            .collector = g->cfg.collector, .timeout_s = g->cfg.timeout_s};
        sl_sources_collect(&in, &snap, lw, status);
    }
    sl_likwid_free(&snap);
}

void sl_close_run(void)
{
    if (!sl_close_claim())
        return;     /* a second Close, from any thread: answered here */
    sl_signals_finishing(1);
    sl_exit_superseded();   /* a Close from an exit handler replaces the exit hook's result */
    const sl_state *g = &sl_g;
    int ng = g->ngroups > 0 ? g->ngroups : 1;
    int64_t group = atomic_load(&sl_next_group_calls) % ng;
    sl_likwid lw;
    sl_likwid_init(&lw);
    sl_text status = {0};
    if (g->cycle > 1)
        sl_text_add(&status, "Init..Close cycle %d of process %lld", g->cycle, (long long)g->pid);
    counters(g, sl_cycle_api(), secure_getenv("LIKWID_FILEPATH"), group, &lw, &status);
    sl_deliver_in in;
    sl_deliver_in_from(g, &in);
    int saved = sl_deliver(&in, &lw, status.s ? status.s : "") == 0;
    free(status.s);
    sl_likwid_free(&lw);
    if (saved)
        sl_survive_end();   /* else the journal is the last copy: it stays */
    sl_fork_deliver_parent();
    sl_signals_finishing(0);
    sl_cycle_close_done();
}
