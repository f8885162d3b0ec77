/* LIKWID's counters at Close: the closing thread's GetRegion snapshots,
 * LIKWID's Close, the counter-source chain (collector, marker file,
 * snapshots). */
#include "end.h"

#include <stdlib.h>
#include <string.h>

/* The counter source chain and the closing thread's snapshots (see
 * end.h). */
#define SNAPSHOT_EVENTS 256

typedef struct snap_ctx {
    const sl_real_api *r;
    sl_likwid *lw;
    int64_t group;
} snap_ctx;

static void snap_one(void *vctx, const char *tag)
{
    snap_ctx *c = vctx;
    double events[SNAPSHOT_EVENTS];
    int nr = SNAPSHOT_EVENTS, count = 0;
    double time = 0;
    memset(events, 0, sizeof events);
    c->r->get(tag, &nr, events, &time, &count);
    if (count <= 0)
        return;     /* as in the marker file: regions without calls are left out */
    if (nr < 0 || nr > SNAPSHOT_EVENTS)
        nr = 0;
    sl_region *reg = sl_likwid_add(c->lw, tag, strlen(tag), c->group, "", SL_SOURCE_MARKER_API,
                                   1, (size_t)nr, 0, 0);
    if (!reg)
        return;
    int cpu = sched_getcpu();
    reg->cpus[0] = cpu;
    reg->times[0] = time;
    reg->call_counts[0] = count;
    for (int e = 0; e < nr; e++)
        reg->events[e] = events[e];
}

const char *sl_snapshots_take(const sl_real_api *r, int64_t group, int by_group,
                              sl_likwid *snap)
{
    sl_rt_thread *t = sl_rt_self();
    if (!t || !r->get)
        return NULL;
    if (by_group) {
        cpu_set_t cpus;
        if (sched_getaffinity(0, sizeof cpus, &cpus) != 0 || CPU_COUNT(&cpus) != 1)
            return "not taken: the closing thread is not bound to one CPU, and LIKWID 5.2 to "
                   "5.4 keep regions per CPU (a GetRegion could add an empty one, which changes "
                   "what their Close prints and writes)";
        sl_rt_mark_group(group);
    }
    snap_ctx c = {r, snap, group};
    sl_rt_each_started(t, by_group ? group : -1, snap_one, &c);
    if (snap->nregions)
        snap->source = SL_SOURCE_MARKER_API;
    else if (by_group)
        return "no region was measured by the closing thread in LIKWID's active group";
    return NULL;
}

int sl_sources_collect(const sl_sources_in *in, sl_likwid *snap, sl_likwid *lw,
                       sl_why *status)
{
    int have = 0;
    if (in->sources & (SL_SRC_FULL_API | SL_SRC_MARKER_FILE) &&
        sl_source_markerfile_ok(in->markerfile, status)) {
        if (in->sources & SL_SRC_FULL_API) {
            have = sl_source_collector(in, lw, status);
            if (have)
                sl_status_add(status, "used full_api");
        }
        if (!have && (in->sources & SL_SRC_MARKER_FILE))
            have = sl_source_markerfile(in->markerfile, lw, status);
    }
    if (!have && (in->sources & SL_SRC_MARKER_API)) {
        if (snap->nregions) {
            sl_likwid_free(lw);
            *lw = *snap;
            sl_likwid_init(snap);
            sl_status_add(status, "used marker_api");
            have = 1;
        } else {
            sl_status_add(status, "marker_api: %s",
                        in->snap_why ? in->snap_why
                                     : "no region was measured by the closing thread");
        }
    }
    if (!have)
        sl_status_add(status, "no counter data");
    return have;
}

/* Why there are no counters, for the status text. */
void sl_not_counting(const sl_state *g, const sl_real_api *r, sl_why *status)
{
    if (!r->close)
        sl_status_add(status, "LIKWID not counting (the application is not linked with LIKWID); "
                            "timing only");
    else
        sl_status_add(status, "LIKWID not counting (%s); timing only",
                    g->not_counting ? g->not_counting : "LIKWID_FILEPATH not set");
}

/* What LIKWID yields, with the status text; g read only. */
void sl_counters_at_close(const sl_state *g, const sl_real_api *r, const char *markerpath,
                     int64_t group, int by_group, sl_likwid *lw, sl_why *status)
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
