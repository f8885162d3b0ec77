/* One process's region timing from its per-thread counters and samples
 * (see timing_collect.h): Close's and the journal reader's. */
#include "timing_collect.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What an entry adds up while the samples are walked. */
typedef struct tally {
    size_t tslot;
    int joined;                 /* an earlier entry of the same region and tid has the slot */
    int64_t kept, total, min, max;
} tally;

typedef struct group {
    const char *tag;
    size_t len;
    uint64_t hash;
    size_t nthreads, ncalls, fill;
} group;

typedef struct collect {
    tally *tallies;
    group *groups;
    size_t ngroups;
    size_t *map;                /* open addressing over groups, SIZE_MAX = empty */
    size_t mapcap;
    size_t *slots;              /* open addressing over (region, tid): the entry with the slot */
} collect;

static void collect_free(collect *c)
{
    free(c->tallies);
    free(c->groups);
    free(c->map);
    free(c->slots);
}

static uint64_t tag_hash(const char *tag, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)tag[i]) * 1099511628211ull;
    return h;
}

static int used(const sl_tc_entry *e)
{
    return e->calls > 0 || e->open || e->unmatched > 0 || e->nested > 0;
}

/* Entry k's thread slot in its region: the slot of an earlier entry of the
 * same region and thread id (threads that ended one after another get the
 * same id back from the kernel: one row per id, their calls together),
 * else a new one. */
static void thread_slot(collect *c, sl_tc_entry *entries, size_t k)
{
    sl_tc_entry *e = &entries[k];
    size_t mask = c->mapcap - 1;
    uint64_t h = ((uint64_t)e->region * 0x9e3779b97f4a7c15ull) ^ (uint64_t)e->tid * 1099511628211ull;
    for (size_t i = (size_t)(h ^ (h >> 29)) & mask;; i = (i + 1) & mask) {
        size_t j = c->slots[i];
        if (j == SIZE_MAX) {
            c->slots[i] = k;
            c->tallies[k].tslot = c->groups[e->region].nthreads++;
            return;
        }
        if (entries[j].region == e->region && entries[j].tid == e->tid) {
            c->tallies[k].tslot = c->tallies[j].tslot;
            c->tallies[k].joined = 1;
            return;
        }
    }
}

/* Each used entry's region (a tag's first entry makes it) and thread slot. */
static int group_by_tag(collect *c, sl_tc_entry *entries, size_t n)
{
    c->mapcap = 16;
    while (c->mapcap < n * 2)
        c->mapcap *= 2;
    c->map = malloc(c->mapcap * sizeof *c->map);
    c->slots = malloc(c->mapcap * sizeof *c->slots);
    c->groups = calloc(n ? n : 1, sizeof *c->groups);
    c->tallies = calloc(n ? n : 1, sizeof *c->tallies);
    if (!c->map || !c->slots || !c->groups || !c->tallies)
        return -ENOMEM;
    for (size_t i = 0; i < c->mapcap; i++)
        c->map[i] = c->slots[i] = SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        sl_tc_entry *e = &entries[k];
        e->region = SIZE_MAX;
        if (!used(e))
            continue;
        uint64_t hash = tag_hash(e->tag, e->len);
        size_t mask = c->mapcap - 1, i = hash & mask;
        for (;; i = (i + 1) & mask) {
            size_t g = c->map[i];
            if (g == SIZE_MAX) {
                g = c->ngroups++;
                c->groups[g] = (group){.tag = e->tag, .len = e->len, .hash = hash};
                c->map[i] = g;
            }
            group *G = &c->groups[g];
            if (G->hash == hash && G->len == e->len && memcmp(G->tag, e->tag, e->len) == 0) {
                e->region = g;
                c->tallies[k] = (tally){.total = e->dropped_total, .min = e->dropped_min,
                                        .max = e->dropped_max};
                thread_slot(c, entries, k);
                break;
            }
        }
    }
    return 0;
}

/* The entry a sample belongs to, or SIZE_MAX (none, or left out). */
static size_t sample_entry(const sl_tc_entry *entries, size_t n, const sl_tc_sample *s)
{
    return s->entry < n && entries[s->entry].region != SIZE_MAX ? s->entry : SIZE_MAX;
}

int sl_timing_collect(sl_timing *out, sl_tc_entry *entries, size_t n, const sl_tick_line *line,
                      const sl_tc_samples *samples)
{
    collect c = {0};
    int rc = group_by_tag(&c, entries, n);
    if (rc != 0) {
        collect_free(&c);
        return rc;
    }
    /* The kept calls: each region's count, each entry's total, min, max. */
    sl_tc_sample s;
    samples->rewind(samples->ctx);
    while (samples->next(samples->ctx, &s)) {
        size_t k = sample_entry(entries, n, &s);
        if (k == SIZE_MAX)
            continue;
        tally *x = &c.tallies[k];
        int64_t d = sl_wrap_sub(s.end, s.start);
        c.groups[entries[k].region].ncalls++;
        x->kept++;
        x->total = sl_wrap_add(x->total, d);
        if (d < x->min)
            x->min = d;
        if (d > x->max)
            x->max = d;
    }
    size_t base = out->nregions;
    for (size_t g = 0; g < c.ngroups; g++)
        if (!sl_timing_add(out, c.groups[g].tag, c.groups[g].len, c.groups[g].nthreads,
                           c.groups[g].ncalls)) {
            collect_free(&c);
            return -ENOMEM;
        }
    for (size_t k = 0; k < n; k++) {
        const sl_tc_entry *e = &entries[k];
        if (e->region == SIZE_MAX)
            continue;
        tally *x = &c.tallies[k];
        /* A thread still running may have kept samples after its count
         * was read. */
        int64_t calls = e->calls < x->kept ? x->kept : e->calls;
        /* No call, or a drop seen half-way (counted, min/max not yet). */
        if (x->min == INT64_MAX || x->max == INT64_MIN)
            x->min = x->max = 0;
        if (e->tsc) {
            x->total = sl_tick_dur(line, x->total);
            x->min = sl_tick_dur(line, x->min);
            x->max = sl_tick_dur(line, x->max);
        }
        sl_timing_region *R = &out->regions[base + e->region];
        size_t ts = x->tslot;
        if (!x->joined) {
            R->threads[ts] = e->tid;
            R->call_counts[ts] = calls;
            R->total_ns[ts] = x->total;
            R->min_ns[ts] = calls ? x->min : 0;
            R->max_ns[ts] = calls ? x->max : 0;
        } else if (calls) {
            if (!R->call_counts[ts] || x->min < R->min_ns[ts])
                R->min_ns[ts] = x->min;
            if (!R->call_counts[ts] || x->max > R->max_ns[ts])
                R->max_ns[ts] = x->max;
            R->call_counts[ts] = sl_wrap_add(R->call_counts[ts], calls);
            R->total_ns[ts] = sl_wrap_add(R->total_ns[ts], x->total);
        }
        R->dropped_calls = sl_wrap_add(R->dropped_calls, sl_wrap_sub(calls, x->kept));
        R->open_at_close += e->open ? 1 : 0;
        R->unmatched_stops = sl_wrap_add(R->unmatched_stops, e->unmatched);
        R->nested_starts = sl_wrap_add(R->nested_starts, e->nested);
    }
    /* Every kept call, in the walk's order. */
    samples->rewind(samples->ctx);
    while (samples->next(samples->ctx, &s)) {
        size_t k = sample_entry(entries, n, &s);
        if (k == SIZE_MAX)
            continue;
        sl_timing_region *R = &out->regions[base + entries[k].region];
        size_t f = c.groups[entries[k].region].fill++;
        if (f >= R->ncalls)
            continue;       /* the walk gave more than the first time */
        R->call_threads[f] = s.tid;
        R->start_times[f] = s.tsc ? sl_tick_time(line, s.start) : s.start;
        R->end_times[f] = s.tsc ? sl_tick_time(line, s.end) : s.end;
    }
    collect_free(&c);
    return 0;
}
