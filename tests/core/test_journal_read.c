/* The journal's reader on journals built here byte by byte: the figures of
 * each region (calls from cap - left, kept samples, dropped sums), regions
 * grouped by tag across threads, the TSC line, and what it leaves out (an
 * unused entry, a sample of no entry, a chunk outside the file). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "run.h"

#define BASE 0x7f0000000000ull
#define FILE_BYTES (1 << 16)

/* A journal image under construction: records appended at `used`. */
typedef struct img {
    _Alignas(64) unsigned char b[FILE_BYTES];
} img;

static sl_jrn_header *hdr(img *m)
{
    return (sl_jrn_header *)(void *)m->b;
}

static void init(img *m, int tsc)
{
    memset(m, 0, sizeof *m);
    sl_jrn_header *h = hdr(m);
    memcpy(h->magic, SL_JRN_MAGIC, sizeof SL_JRN_MAGIC);
    h->header_bytes = SL_JRN_HEADER_BYTES;
    h->align = SL_JRN_ALIGN;
    h->size = FILE_BYTES;
    h->base = BASE;
    h->used = SL_JRN_HEADER_BYTES;
    h->pid = 4242;
    h->tsc = tsc;
    h->state = SL_JRN_RUNNING;
}

/* A record of kind with an object of n bytes; the object's address. */
static uint64_t rec(img *m, uint32_t kind, uint64_t owner, size_t n)
{
    sl_jrn_header *h = hdr(m);
    size_t bytes = (sizeof(sl_jrn_rec) + n + SL_JRN_ALIGN - 1) / SL_JRN_ALIGN * SL_JRN_ALIGN;
    cr_assert_leq(h->used + bytes, FILE_BYTES);
    sl_jrn_rec *r = (sl_jrn_rec *)(void *)(m->b + h->used);
    r->kind = kind;
    r->bytes = bytes;
    r->owner = owner;
    uint64_t obj = BASE + h->used + sizeof *r;
    h->used += bytes;
    return obj;
}

static void *at(img *m, uint64_t addr)
{
    return m->b + (addr - BASE);
}

static uint64_t thread(img *m, int64_t tid)
{
    uint64_t a = rec(m, SL_JRN_THREAD, 0, sizeof(sl_jrn_thread));
    ((sl_jrn_thread *)at(m, a))->tid = tid;
    return a;
}

/* A region entry of thread th: calls completed (of a cap of 100), the
 * dropped calls' sums, open or not. */
static uint64_t entry(img *m, uint64_t th, const char *tag, int64_t calls, int64_t dtotal,
                      int64_t dmin, int64_t dmax, int open)
{
    size_t len = strlen(tag);
    uint64_t a = rec(m, SL_JRN_ENTRY, th, sizeof(sl_jrn_entry) + len + 1);
    sl_jrn_entry *e = at(m, a);
    memcpy((char *)e + sizeof *e, tag, len + 1);
    *e = (sl_jrn_entry){.tag = a + sizeof *e, .len = len, .cap = 100, .left = 100 - calls,
                        .open_start = open ? 5 : -1, .dropped_total = dtotal,
                        .dropped_min = dmin, .dropped_max = dmax};
    return a;
}

/* One chunk of n samples for thread th, the thread's only (snext after it). */
static void samples(img *m, uint64_t th, const sl_jrn_sample *s, size_t n)
{
    uint64_t c = rec(m, SL_JRN_ARENA, th, sizeof(sl_jrn_chunk) + 8 * sizeof *s);
    sl_jrn_chunk *ch = at(m, c);
    uint64_t first = c + sizeof *ch;
    ch->end = first + 8 * sizeof *s;
    memcpy(at(m, first), s, n * sizeof *s);
    sl_jrn_thread *t = at(m, th);
    t->arena = t->cur = c;
    t->snext = first + n * sizeof *s;
}

static sl_run read_img(img *m, sl_jrn_info *info)
{
    sl_run run;
    sl_run_init(&run);
    sl_diag d = {0};
    cr_assert_eq(sl_journal_read_mem(m->b, FILE_BYTES, "test", NULL, &run, info, &d), 0);
    sl_diag_free(&d);
    return run;
}

static const sl_timing_region *region(const sl_run *r, const char *tag)
{
    for (size_t i = 0; i < r->timing.nregions; i++)
        if (strcmp(r->timing.regions[i].tag, tag) == 0)
            return &r->timing.regions[i];
    cr_assert_fail("no region %s", tag);
    return NULL;
}

Test(journal_read, one_thread_kept_calls_and_open_region)
{
    static img m;
    init(&m, 0);
    uint64_t th = thread(&m, 7);
    uint64_t a = entry(&m, th, "solve", 3, 0, INT64_MAX, INT64_MIN, 0);
    entry(&m, th, "never", 0, 0, INT64_MAX, INT64_MIN, 0);
    entry(&m, th, "inside", 0, 0, INT64_MAX, INT64_MIN, 1);
    sl_jrn_sample s[] = {{a, 100, 150}, {a, 200, 230}, {a, 300, 400}};
    samples(&m, th, s, 3);
    sl_jrn_info info;
    sl_run run = read_img(&m, &info);
    cr_assert_eq(run.pid, 4242);
    cr_assert_eq(run.timing.nregions, 2, "the unused entry is left out");
    const sl_timing_region *r = &run.timing.regions[0];
    cr_assert_str_eq(r->tag, "solve");
    cr_assert_eq(r->nthreads, 1);
    cr_assert_eq(r->threads[0], 7);
    cr_assert_eq(r->call_counts[0], 3);
    cr_assert_eq(r->total_ns[0], 50 + 30 + 100);
    cr_assert_eq(r->min_ns[0], 30);
    cr_assert_eq(r->max_ns[0], 100);
    cr_assert_eq(r->ncalls, 3);
    cr_assert_eq(r->start_times[2], 300);
    cr_assert_eq(r->end_times[2], 400);
    cr_assert_eq(r->call_threads[1], 7);
    cr_assert_eq(r->dropped_calls, 0);
    const sl_timing_region *o = &run.timing.regions[1];
    cr_assert_str_eq(o->tag, "inside");
    cr_assert_eq(o->open_at_close, 1);
    cr_assert_eq(o->call_counts[0], 0);
    cr_assert_eq(o->ncalls, 0);
    cr_assert_eq(info.open_regions, 1);
    cr_assert_str_eq(info.open_tags, "inside (thread 7)");
    sl_run_free(&run);
}

Test(journal_read, one_tag_in_two_threads_and_dropped_calls)
{
    static img m;
    init(&m, 0);
    uint64_t t1 = thread(&m, 11), t2 = thread(&m, 12);
    /* Thread 11: 5 calls, 2 kept, 3 dropped (sum 70, 10..40). */
    uint64_t a1 = entry(&m, t1, "loop", 5, 70, 10, 40, 0);
    uint64_t a2 = entry(&m, t2, "loop", 1, 0, INT64_MAX, INT64_MIN, 0);
    sl_jrn_sample s1[] = {{a1, 0, 5}, {a1, 10, 60}}, s2[] = {{a2, 1000, 1007}};
    samples(&m, t1, s1, 2);
    samples(&m, t2, s2, 1);
    sl_jrn_info info;
    sl_run run = read_img(&m, &info);
    cr_assert_eq(run.timing.nregions, 1);
    const sl_timing_region *r = region(&run, "loop");
    cr_assert_eq(r->nthreads, 2);
    cr_assert_eq(r->threads[0], 11);
    cr_assert_eq(r->threads[1], 12);
    cr_assert_eq(r->call_counts[0], 5);
    cr_assert_eq(r->total_ns[0], 70 + 5 + 50);
    cr_assert_eq(r->min_ns[0], 5);
    cr_assert_eq(r->max_ns[0], 50);
    cr_assert_eq(r->call_counts[1], 1);
    cr_assert_eq(r->total_ns[1], 7);
    cr_assert_eq(r->dropped_calls, 3);
    cr_assert_eq(r->ncalls, 3);
    int64_t tids[] = {11, 11, 12}, starts[] = {0, 10, 1000};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(r->call_threads[i], tids[i]);
        cr_assert_eq(r->start_times[i], starts[i]);
    }
    cr_assert_eq(info.open_regions, 0);
    sl_run_free(&run);
}

Test(journal_read, tsc_ticks_on_the_line_through_the_header_pairs)
{
    static img m;
    init(&m, 1);
    sl_jrn_header *h = hdr(&m);
    /* Two ticks per ns, tick 1000 at 500 ns. */
    h->tick0 = 1000;
    h->ns0 = 500;
    h->tick1 = 3000;
    h->ns1 = 1500;
    uint64_t th = thread(&m, 3);
    ((sl_jrn_thread *)at(&m, th))->tsc = 1;
    uint64_t a = entry(&m, th, "t", 2, 40, 40, 40, 0);
    sl_jrn_sample s[] = {{a, 2000, 2100}};
    samples(&m, th, s, 1);
    sl_jrn_info info;
    sl_run run = read_img(&m, &info);
    const sl_timing_region *r = region(&run, "t");
    cr_assert_eq(r->call_counts[0], 2);
    cr_assert_eq(r->total_ns[0], (40 + 100) / 2);
    cr_assert_eq(r->min_ns[0], 20);
    cr_assert_eq(r->max_ns[0], 50);
    cr_assert_eq(r->start_times[0], 500 + (2000 - 1000) / 2);
    cr_assert_eq(r->end_times[0], 500 + (2100 - 1000) / 2);
    sl_run_free(&run);
}

Test(journal_read, samples_of_no_entry_and_chunks_outside)
{
    static img m;
    init(&m, 0);
    uint64_t th = thread(&m, 9);
    uint64_t a = entry(&m, th, "x", 1, 0, INT64_MAX, INT64_MIN, 0);
    /* The second sample names an address that is no entry. */
    sl_jrn_sample s[] = {{a, 10, 20}, {a + 8, 30, 40}};
    samples(&m, th, s, 2);
    sl_jrn_thread *t = at(&m, th);
    t->outside = 6;     /* full chunks the journal had no room for */
    sl_jrn_info info;
    sl_run run = read_img(&m, &info);
    const sl_timing_region *r = region(&run, "x");
    cr_assert_eq(r->ncalls, 1);
    cr_assert_eq(r->total_ns[0], 10);
    cr_assert_eq(info.outside_threads, 1);
    cr_assert_eq(info.outside_calls, 6);
    sl_run_free(&run);
}
