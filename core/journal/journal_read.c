/* Reading a journal back (see journal.h): the timing Close collects from
 * the live tables, from the file a killed process left, by the same
 * sl_timing_collect (core/model/timing_collect.h). Every address is checked against the file before it is followed:
 * the process may have died at any instruction. */
#include "journal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal_file.h"
#include "journal_meta.h"
#include "likwid_result.h"
#include "timing_collect.h"
#include "vec.h"

static void copy_str(char *dst, size_t cap, const char *src, size_t srccap)
{
    size_t n = strnlen(src, srccap);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* A header's string field (NUL-terminated within cap, or not) into slot. */
static void set_field(char **slot, const char *src, size_t cap)
{
    char *s = strndup(src, cap);
    if (s)
        sl_set_string(slot, s);
    free(s);
}

static void fill_info(const jfile *j, sl_jrn_info *info)
{
    memset(info, 0, sizeof *info);
    info->pid = j->h->pid;
    info->start_ticks = j->h->start_ticks;
    copy_str(info->boot_id, sizeof info->boot_id, j->h->boot_id, sizeof j->h->boot_id);
    info->state = j->h->state;
    info->outside_tables = j->h->outside_tables > 0 ? j->h->outside_tables : 0;
    info->outside_entries = j->h->outside_entries > 0 ? j->h->outside_entries : 0;
    info->signo = j->h->signo;
    info->cycle = j->h->cycle > 1 ? j->h->cycle : 1;
    info->batch_first = j->h->batch_first > 0 && j->h->batch_first <= info->cycle
                            ? j->h->batch_first : 0;
    copy_str(info->output, sizeof info->output, j->h->output, sizeof j->h->output);
    copy_str(info->rescue, sizeof info->rescue, j->h->rescue, sizeof j->h->rescue);
    copy_str(info->hostname, sizeof info->hostname, j->h->hostname, sizeof j->h->hostname);
    info->pid_ns = j->h->pid_ns;
    info->signal_ns = j->h->signal_ns > 0 ? j->h->signal_ns : 0;
    sl_jrn_meta_info(j, info);
}

int sl_journal_read_info(const char *path, sl_jrn_info *info, sl_diag *d)
{
    jfile j;
    int rc = sl_jf_open(path, &j, d);
    if (rc)
        return rc;
    fill_info(&j, info);
    sl_jf_close(&j);
    return 0;
}

/* ---- the records ---- */

typedef struct jthread {
    size_t off;                 /* of the object */
    int64_t tid;
    int tsc;
    size_t seg0, nseg;          /* its chunks' samples: segs[seg0 .. seg0 + nseg) */
    int64_t outside;            /* calls whose samples are not in the journal */
} jthread;

/* The samples of one chunk: offset of the first, how many. */
typedef struct jseg {
    size_t first, n;
} jseg;

typedef struct jentry {
    size_t off;                 /* of the object */
    size_t thread;              /* index into threads */
    const sl_jrn_entry *e;
    const char *tag;
} jentry;

typedef struct jread {
    jthread *threads;
    size_t nthreads;
    jentry *entries;
    size_t nentries;
    jseg *segs;
    size_t nsegs, segcap;
    size_t nrecs;               /* records walked: bounds a chunk chain */
} jread;

static void jread_free(jread *r)
{
    free(r->segs);
    free(r->threads);
    free(r->entries);
}

static size_t thread_index(const jread *r, size_t off)
{
    for (size_t i = r->nthreads; i-- > 0;)
        if (r->threads[i].off == off)
            return i;
    return SIZE_MAX;
}

/* Entries sorted by offset: a sample's entry is found by bisection. */
static int by_off(const void *a, const void *b)
{
    size_t x = ((const jentry *)a)->off, y = ((const jentry *)b)->off;
    return x < y ? -1 : x > y;
}

static const jentry *entry_at(const jread *r, size_t off)
{
    size_t lo = 0, hi = r->nentries;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->entries[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nentries && r->entries[lo].off == off ? &r->entries[lo] : NULL;
}

/* Calls a chunk outside the journal holds: from its first sample to end
 * (addresses a damaged file may hold anything in: bounded, no overflow). */
static int64_t samples_between(uint64_t first, uint64_t end)
{
    if (end <= first || end - first > ((uint64_t)1 << 46))
        return 0;
    return (int64_t)((end - first) / sizeof(sl_jrn_sample));
}

/* A thread's chunks, in the order it filled them, as segments of samples;
 * what lies outside the journal (the journal was full) is counted. */
static int chunks(const jfile *j, jread *r, const sl_jrn_thread *t, jthread *x)
{
    x->seg0 = r->nsegs;
    uint64_t c = t->arena;
    /* A thread's chunks lie ever further in the file: a damaged chain
     * cannot loop. */
    for (size_t prev = 0, co; c; prev = co + 1) {
        co = sl_jf_off(j, c, sizeof(sl_jrn_chunk));
        /* A damaged piece record may place an aligned address at an
         * unaligned offset: the chunk is read where it lies only if aligned. */
        if (co == SIZE_MAX || c % 8 || (uintptr_t)(j->p + co) % _Alignof(sl_jrn_chunk))
            break;      /* outside the journal: so are the chunks after it */
        if (co < prev)
            break;
        const sl_jrn_chunk *ch = (const void *)(j->p + co);
        uint64_t b = c + sizeof *ch, e = b;
        int last = t->snext >= b && t->snext <= ch->end;
        if (last)
            e = t->snext;
        else if (ch->fill >= b && ch->fill <= ch->end)
            e = ch->fill;
        size_t n = (size_t)(e - b) / sizeof(sl_jrn_sample);
        size_t bo = sl_jf_off(j, b, n * sizeof(sl_jrn_sample));
        if (bo != SIZE_MAX && n && (uintptr_t)(j->p + bo) % _Alignof(sl_jrn_sample) == 0) {
            if (SL_VEC_RESERVE(r->segs, r->segcap, r->nsegs, 1) < 0)
                return -ENOMEM;
            r->segs[r->nsegs++] = (jseg){.first = bo, .n = n};
        }
        if (last)
            break;
        c = ch->next;
    }
    x->nseg = r->nsegs - x->seg0;
    /* Full chunks outside the journal, and the current one if it is. */
    x->outside = t->outside > 0 && t->outside < ((int64_t)1 << 40) ? t->outside : 0;
    if (t->cur && sl_jf_off(j, t->cur, sizeof(sl_jrn_chunk)) == SIZE_MAX)
        x->outside += samples_between(t->cur + sizeof(sl_jrn_chunk), t->snext);
    return 0;
}

static int walk(const jfile *j, jread *r)
{
    size_t cap_t = 0, cap_e = 0;
    for (size_t o = SL_JRN_HEADER_BYTES; o + sizeof(sl_jrn_rec) <= j->h->used; r->nrecs++) {
        const sl_jrn_rec *rec = (const void *)(j->p + o);
        if (rec->bytes < sizeof *rec || rec->bytes > j->h->used - o || rec->bytes % SL_JRN_ALIGN)
            break;      /* allocated, never filled (or damaged): nothing after it is sure */
        size_t obj = o + sizeof *rec, objlen = (size_t)rec->bytes - sizeof *rec;
        if (rec->kind == SL_JRN_THREAD && objlen >= sizeof(sl_jrn_thread)) {
            if (SL_VEC_RESERVE(r->threads, cap_t, r->nthreads, 1) < 0)
                return -ENOMEM;
            const sl_jrn_thread *t = (const void *)(j->p + obj);
            jthread x = {.off = obj, .tid = t->tid, .tsc = t->tsc};
            if (chunks(j, r, t, &x) != 0)
                return -ENOMEM;
            r->threads[r->nthreads++] = x;
        } else if (rec->kind == SL_JRN_ENTRY && objlen >= sizeof(sl_jrn_entry)) {
            const sl_jrn_entry *e = (const void *)(j->p + obj);
            size_t th = thread_index(r, sl_jf_off(j, rec->owner, sizeof(sl_jrn_thread)));
            size_t tg = sl_jf_off(j, e->tag, (size_t)e->len);
            if (th == SIZE_MAX || tg == SIZE_MAX || e->len > objlen)
                goto next;
            if (SL_VEC_RESERVE(r->entries, cap_e, r->nentries, 1) < 0)
                return -ENOMEM;
            r->entries[r->nentries++] = (jentry){.off = obj, .thread = th, .e = e,
                                                 .tag = (const char *)(j->p + tg)};
        }
    next:
        o += (size_t)rec->bytes;
    }
    return 0;
}

/* The line through Init's pair and the reader's (same boot) or the latest
 * pair the process recorded. */
static sl_tick_line make_line(const sl_jrn_header *h, const sl_jrn_clock *clk)
{
    sl_tick_line c = {0};
    if (!h->tsc)
        return c;
    c.on = 1;
    c.tick0 = h->tick0;
    c.ns0 = h->ns0;
    int same_boot = clk && clk->boot_id && clk->tick && strncmp(clk->boot_id, h->boot_id,
                                                                  sizeof h->boot_id) == 0;
    int64_t t1 = same_boot ? clk->tick : h->tick1, n1 = same_boot ? clk->ns : h->ns1;
    c.dtick = sl_wrap_sub(t1, h->tick0);
    c.dns = sl_wrap_sub(n1, h->ns0);
    if (c.dtick <= 0 || c.dns <= 0)
        c.dtick = c.dns = 1;
    return c;
}

static void add_open(sl_jrn_info *info, const jentry *x, int64_t tid)
{
    info->open_regions++;
    size_t n = strlen(info->open_tags);
    if (n + 40 >= sizeof info->open_tags)
        return;
    snprintf(info->open_tags + n, sizeof info->open_tags - n, "%s%.*s (thread %lld)",
             n ? ", " : "", (int)(x->e->len < 64 ? x->e->len : 64), x->tag, (long long)tid);
}

/* The walk over the samples: every thread's segments in order. */
typedef struct jwalk {
    const jfile *j;
    const jread *r;
    size_t ti, g, k;
} jwalk;

static void jwalk_rewind(void *ctx)
{
    jwalk *w = ctx;
    w->ti = w->g = w->k = 0;
    if (w->r->nthreads)
        w->g = w->r->threads[0].seg0;
}

static int jwalk_next(void *ctx, sl_tc_sample *out)
{
    jwalk *w = ctx;
    const jread *r = w->r;
    while (w->ti < r->nthreads) {
        const jthread *t = &r->threads[w->ti];
        if (w->g < t->seg0 + t->nseg && w->k < r->segs[w->g].n) {
            const sl_jrn_sample *s = (const sl_jrn_sample *)(const void *)(w->j->p +
                                                                           r->segs[w->g].first) +
                                     w->k++;
            const jentry *x = entry_at(r, sl_jf_off(w->j, s->e, sizeof(sl_jrn_entry)));
            *out = (sl_tc_sample){.entry = x ? (size_t)(x - r->entries) : SIZE_MAX,
                                  .tid = t->tid, .tsc = t->tsc, .start = s->start,
                                  .end = s->end};
            return 1;
        }
        w->k = 0;
        if (w->g < t->seg0 + t->nseg)
            w->g++;
        else if (++w->ti < r->nthreads)
            w->g = r->threads[w->ti].seg0;
    }
    return 0;
}

static int build(const jfile *j, jread *r, const sl_tick_line *line, sl_timing *out,
                 sl_jrn_info *info)
{
    if (r->nentries)
        qsort(r->entries, r->nentries, sizeof *r->entries, by_off);
    sl_tc_entry *te = calloc(r->nentries ? r->nentries : 1, sizeof *te);
    if (!te)
        return -ENOMEM;
    for (size_t i = 0; i < r->nentries; i++) {
        const jentry *x = &r->entries[i];
        const sl_jrn_entry *e = x->e;
        const jthread *t = &r->threads[x->thread];
        te[i] = (sl_tc_entry){.tag = x->tag, .len = (size_t)e->len, .tid = t->tid,
                              .tsc = t->tsc, .open = e->open_start >= 0,
                              .calls = sl_wrap_sub(e->cap, e->left),
                              .dropped_total = e->dropped_total,
                              .dropped_min = e->dropped_min, .dropped_max = e->dropped_max,
                              .nested = e->nested, .unmatched = e->unmatched};
    }
    jwalk w = {.j = j, .r = r};
    sl_tc_samples walk = {jwalk_rewind, jwalk_next, &w};
    int rc = sl_timing_collect(out, te, r->nentries, line, &walk);
    for (size_t i = 0; rc == 0 && i < r->nentries; i++)
        if (te[i].region != SIZE_MAX && te[i].open)
            add_open(info, &r->entries[i], te[i].tid);
    free(te);
    return rc;
}

/* The run's start and end on the timing clock, as Close gives them: Init
 * (or the first recorded start, if earlier) to the last recorded end (the
 * signal, if later: the process ended there). */
static void span(const sl_jrn_header *h, const sl_timing *t, sl_run_meta *m)
{
    int64_t start = h->ns0 > 0 ? h->ns0 : INT64_MAX, fin = h->signal_ns > 0 ? h->signal_ns : 0;
    for (size_t i = 0; i < t->nregions; i++)
        for (size_t c = 0; c < t->regions[i].ncalls; c++) {
            if (t->regions[i].start_times[c] < start)
                start = t->regions[i].start_times[c];
            if (t->regions[i].end_times[c] > fin)
                fin = t->regions[i].end_times[c];
        }
    if (start == INT64_MAX)
        return;
    m->start_time_ns = start;
    m->finalize_time_ns = fin > start ? fin : start;
}

static int read_mapped(jfile *j, const char *name, const sl_jrn_clock *clk, sl_run *run,
                       sl_jrn_info *info, sl_diag *d)
{
    fill_info(j, info);
    const sl_jrn_header *h = j->h;
    run->rank = h->rank;
    run->mpi_rank = h->mpi ? h->rank : -1;
    run->pid = h->pid;
    run->parent_pid = h->parent_pid > 0 ? h->parent_pid : 0;
    set_field(&run->hostname, h->hostname, sizeof h->hostname);
    set_field(&run->executable, h->executable, sizeof h->executable);
    set_field(&run->command_line, h->command_line, sizeof h->command_line);
    sl_provenance prov = h->prov;       /* a damaged journal's strings end here */
    prov.cpu_model[sizeof prov.cpu_model - 1] = '\0';
    prov.kernel_release[sizeof prov.kernel_release - 1] = '\0';
    prov.clock_source[sizeof prov.clock_source - 1] = '\0';
    sl_provenance_set(run, &prov);
    set_field(&run->meta.run_id, h->run_id, sizeof h->run_id);
    sl_jrn_meta_run(j, run);
    sl_set_string(&run->timing.clock, "CLOCK_MONOTONIC");
    run->timing.origin_unix_ns = h->origin_unix_ns;
    jread r = {0};
    sl_tick_line line = make_line(h, clk);
    int rc = sl_jf_pieces(j);
    if (rc == 0)
        rc = walk(j, &r);
    for (size_t i = 0; i < r.nthreads; i++) {
        info->outside_threads += r.threads[i].outside > 0;
        info->outside_calls += r.threads[i].outside;
    }
    if (rc == 0)
        rc = build(j, &r, &line, &run->timing, info);
    if (rc == 0)
        span(h, &run->timing, &run->meta);
    if (rc)
        sl_diag_add(d, name, 0, "cannot read the journal: %s", strerror(-rc));
    jread_free(&r);
    free(j->pieces);
    j->pieces = NULL;
    return rc;
}

int sl_journal_read(const char *path, const sl_jrn_clock *clk, sl_run *run, sl_jrn_info *info,
                    sl_diag *d)
{
    jfile j;
    int rc = sl_jf_open(path, &j, d);
    if (rc)
        return rc;
    rc = read_mapped(&j, path, clk, run, info, d);
    sl_jf_close(&j);
    return rc;
}

int sl_journal_read_mem(const void *p, size_t size, const char *name, const sl_jrn_clock *clk,
                        sl_run *run, sl_jrn_info *info, sl_diag *d)
{
    jfile j = {.p = p, .size = size, .h = p};
    int rc = sl_jf_check(&j, name, d);
    return rc ? rc : read_mapped(&j, name, clk, run, info, d);
}
