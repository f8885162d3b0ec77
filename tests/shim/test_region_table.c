/* The per-thread region table: sums, min/max, nesting, unmatched stops, the
 * per-call sample cap, table growth, long tags, several threads. Times are
 * passed in explicitly, so every expected value is exact. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "regions.h"
#include "hot_path.h"
#include "timing.h"

static sl_timing collect(void)
{
    sl_timing t;
    sl_timing_init(&t);
    cr_assert_eq(sl_rt_collect(&t), 0);
    return t;
}

static const sl_timing_region *find(const sl_timing *t, const char *tag)
{
    for (size_t i = 0; i < t->nregions; i++)
        if (t->regions[i].tag_len == strlen(tag) && memcmp(t->regions[i].tag, tag, strlen(tag)) == 0)
            return &t->regions[i];
    return NULL;
}

static sl_rt_entry *entry(const char *tag)
{
    sl_rt_thread *t = sl_rt_self();
    cr_assert_not_null(t);
    sl_rt_entry *e = sl_rt_lookup(t, tag, 1);
    cr_assert_not_null(e);
    return e;
}

static void call(const char *tag, int64_t start, int64_t end)
{
    sl_rt_entry *e = entry(tag);
    cr_assert_eq(sl_rt_start_at(e, start), 0);
    cr_assert_eq(sl_rt_stop_at(sl_rt_self(), e, end), 0);
}

Test(region_table, sums_min_max_and_samples)
{
    sl_rt_configure(1000, 0);
    call("a", 100, 150);
    call("a", 200, 230);
    call("a", 300, 400);
    call("b", 10, 11);
    sl_timing t = collect();
    cr_assert_eq(t.nregions, 2);
    const sl_timing_region *a = find(&t, "a");
    cr_assert_not_null(a);
    cr_assert_eq(a->nthreads, 1);
    cr_assert_eq(a->threads[0], (int64_t)gettid());
    cr_assert_eq(a->call_counts[0], 3);
    cr_assert_eq(a->total_ns[0], 50 + 30 + 100);
    cr_assert_eq(a->min_ns[0], 30);
    cr_assert_eq(a->max_ns[0], 100);
    cr_assert_eq(a->ncalls, 3);
    int64_t starts[] = {100, 200, 300}, ends[] = {150, 230, 400};
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(a->start_times[i], starts[i]);
        cr_assert_eq(a->end_times[i], ends[i]);
        cr_assert_eq(a->call_threads[i], (int64_t)gettid());
    }
    cr_assert_eq(a->dropped_calls, 0);
    cr_assert_eq(a->open_at_close, 0);
    cr_assert_str_eq(t.regions[0].tag, "a", "regions in order of first use");
    cr_assert_str_eq(t.regions[1].tag, "b");
    sl_timing_free(&t);
}

Test(region_table, nesting_keeps_first_start)
{
    sl_rt_thread *th = sl_rt_self();
    sl_rt_entry *e = entry("n");
    cr_assert_eq(sl_rt_start_at(e, 0), 0);
    cr_assert_eq(sl_rt_start_at(e, 10), 1, "start while open is a nested start");
    cr_assert_eq(sl_rt_stop_at(th, e, 25), 0);
    cr_assert_eq(sl_rt_stop_at(th, e, 30), -1, "second stop has no start");
    /* different tags nest freely */
    sl_rt_entry *o = entry("outer"), *i = entry("inner");
    cr_assert_eq(sl_rt_start_at(o, 100), 0);
    cr_assert_eq(sl_rt_start_at(i, 110), 0);
    cr_assert_eq(sl_rt_stop_at(th, i, 120), 0);
    cr_assert_eq(sl_rt_stop_at(th, o, 200), 0);
    sl_timing t = collect();
    const sl_timing_region *n = find(&t, "n");
    cr_assert_eq(n->call_counts[0], 1);
    cr_assert_eq(n->total_ns[0], 25);
    cr_assert_eq(n->nested_starts, 1);
    cr_assert_eq(n->unmatched_stops, 1);
    cr_assert_eq(find(&t, "outer")->total_ns[0], 100);
    cr_assert_eq(find(&t, "inner")->total_ns[0], 10);
    sl_timing_free(&t);
}

Test(region_table, unmatched_open_and_registered)
{
    sl_rt_thread *th = sl_rt_self();
    sl_rt_unmatched(th, "never-started");
    sl_rt_unmatched(th, "never-started");
    sl_rt_entry *open = entry("open");
    sl_rt_start_at(open, 5);
    cr_assert(sl_rt_is_open(open));
    cr_assert(sl_rt_started(open));
    sl_rt_entry *reg = entry("registered-only");
    cr_assert_not(sl_rt_started(reg));
    sl_timing t = collect();
    cr_assert_eq(t.nregions, 2, "a region that was only registered is left out");
    const sl_timing_region *u = find(&t, "never-started");
    cr_assert_eq(u->unmatched_stops, 2);
    cr_assert_eq(u->call_counts[0], 0);
    cr_assert_eq(u->min_ns[0], 0);
    cr_assert_eq(u->ncalls, 0);
    const sl_timing_region *o = find(&t, "open");
    cr_assert_eq(o->open_at_close, 1);
    cr_assert_eq(o->call_counts[0], 0);
    cr_assert_null(find(&t, "registered-only"));
    sl_timing_free(&t);
}

Test(region_table, sample_cap_exact)
{
    sl_rt_configure(5, 0);
    for (int i = 0; i < 8; i++)
        call("capped", i * 10, i * 10 + 3);
    for (int i = 0; i < 5; i++)
        call("exact", i, i + 1);
    sl_timing t = collect();
    const sl_timing_region *c = find(&t, "capped");
    cr_assert_eq(c->call_counts[0], 8, "every call is timed");
    cr_assert_eq(c->total_ns[0], 24);
    cr_assert_eq(c->ncalls, 5);
    cr_assert_eq(c->dropped_calls, 3);
    cr_assert_eq(c->start_times[4], 40, "the first calls are the ones kept");
    const sl_timing_region *x = find(&t, "exact");
    cr_assert_eq(x->ncalls, 5);
    cr_assert_eq(x->dropped_calls, 0);
    sl_timing_free(&t);
}

Test(region_table, sample_cap_zero)
{
    sl_rt_configure(0, 0);
    for (int i = 0; i < 4; i++)
        call("z", i, i + 2);
    sl_timing t = collect();
    const sl_timing_region *z = find(&t, "z");
    cr_assert_eq(z->call_counts[0], 4);
    cr_assert_eq(z->total_ns[0], 8);
    cr_assert_eq(z->ncalls, 0);
    cr_assert_eq(z->dropped_calls, 4);
    sl_timing_free(&t);
}

Test(region_table, arena_exhausted_counts_as_dropped)
{
    /* Room for exactly 2 samples (a sample is a pointer and two int64). */
    sl_rt_configure(100, 2 * (sizeof(void *) + 2 * sizeof(int64_t)));
    for (int i = 0; i < 3; i++)
        call("p", i, i + 1);
    for (int i = 0; i < 2; i++)
        call("q", i, i + 1);
    sl_timing t = collect();
    const sl_timing_region *p = find(&t, "p"), *q = find(&t, "q");
    cr_assert_eq(p->ncalls + q->ncalls, 2);
    cr_assert_eq(p->ncalls, 2);
    cr_assert_eq(p->dropped_calls, 1);
    cr_assert_eq(q->dropped_calls, 2);
    cr_assert_eq(q->call_counts[0], 2);
    size_t threads = 0;
    cr_assert_eq(sl_rt_room_dropped(&threads), 3, "the calls that found no room, for the status");
    cr_assert_eq(threads, 1);
    sl_timing_free(&t);
}

Test(region_table, many_tags_grow_the_table)
{
    sl_rt_configure(1000, 0);
    char tag[32];
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 1000; i++) {
            snprintf(tag, sizeof tag, "tag-%d", i);
            call(tag, 0, i + 1);
        }
    sl_timing t = collect();
    cr_assert_eq(t.nregions, 1000);
    for (int i = 0; i < 1000; i++) {
        snprintf(tag, sizeof tag, "tag-%d", i);
        const sl_timing_region *r = find(&t, tag);
        cr_assert_not_null(r, "%s missing", tag);
        cr_assert_eq(r->call_counts[0], 3);
        cr_assert_eq(r->total_ns[0], 3 * (i + 1));
        cr_assert_eq(r->ncalls, 3);
    }
    sl_timing_free(&t);
}

Test(region_table, long_tags)
{
    size_t n = 10 * 1024;
    char *a = malloc(n + 1), *b = malloc(n + 1);
    memset(a, 'x', n);
    a[n] = '\0';
    memcpy(b, a, n + 1);
    b[n - 1] = 'y';     /* differs in the last byte only */
    call(a, 0, 5);
    call(b, 0, 7);
    call(a, 10, 11);
    sl_timing t = collect();
    cr_assert_eq(t.nregions, 2);
    const sl_timing_region *ra = find(&t, a), *rb = find(&t, b);
    cr_assert_eq(ra->tag_len, n);
    cr_assert_eq(ra->call_counts[0], 2);
    cr_assert_eq(ra->total_ns[0], 6);
    cr_assert_eq(rb->call_counts[0], 1);
    sl_timing_free(&t);
    free(a);
    free(b);
}

/* Tags that share a long prefix and suffix and differ in the middle only
 * (the hash looks at the ends): distinct regions, each call in its own. */
Test(region_table, long_tags_differing_in_the_middle)
{
    size_t n = 1 << 20;
    char *buf = malloc(n + 1);
    memset(buf, 'x', n);
    buf[n] = '\0';
    char *copy = strdup(buf);
    call(buf, 0, 5);
    buf[n / 2] = 'y';       /* the same buffer, new contents */
    call(buf, 0, 7);
    call(copy, 10, 11);
    sl_timing t = collect();
    cr_assert_eq(t.nregions, 2);
    cr_assert_eq(find(&t, copy)->call_counts[0], 2);
    cr_assert_eq(find(&t, copy)->total_ns[0], 6);
    cr_assert_eq(find(&t, buf)->call_counts[0], 1);
    sl_timing_free(&t);
    free(buf);
    free(copy);
}

Test(region_table, empty_tag)
{
    call("", 1, 4);
    sl_timing t = collect();
    cr_assert_eq(t.nregions, 1);
    cr_assert_eq(t.regions[0].tag_len, 0);
    cr_assert_eq(t.regions[0].total_ns[0], 3);
    sl_timing_free(&t);
}

#define NTHREADS 4
#define NCALLS 200

static pthread_barrier_t barrier;

static void *worker(void *arg)
{
    int64_t *tid = arg;
    *tid = gettid();
    pthread_barrier_wait(&barrier);
    for (int i = 0; i < NCALLS; i++) {
        call("work", i * 10, i * 10 + 2);
        if (i % 2)
            call(i % 4 == 1 ? "odd-a" : "odd-b", 0, 1);
    }
    return NULL;
}

static void *collector(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&barrier);
    /* Reading while the workers still run: must be consistent and race-free. */
    for (int i = 0; i < 20; i++) {
        sl_timing t = collect();
        for (size_t r = 0; r < t.nregions; r++)
            cr_assert_leq(t.regions[r].nthreads, NTHREADS);
        sl_timing_free(&t);
    }
    return NULL;
}

Test(region_table, threads_are_separate)
{
    sl_rt_configure(50, 0);
    pthread_t th[NTHREADS], col;
    int64_t tids[NTHREADS];
    pthread_barrier_init(&barrier, NULL, NTHREADS + 1);
    pthread_create(&col, NULL, collector, NULL);
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&th[i], NULL, worker, &tids[i]);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    pthread_join(col, NULL);
    pthread_barrier_destroy(&barrier);

    sl_timing t = collect();
    const sl_timing_region *w = find(&t, "work");
    cr_assert_eq(w->nthreads, NTHREADS);
    cr_assert_eq(w->ncalls, NTHREADS * 50);
    cr_assert_eq(w->dropped_calls, NTHREADS * (NCALLS - 50));
    for (int i = 0; i < NTHREADS; i++) {
        int found = 0;
        for (size_t k = 0; k < w->nthreads; k++)
            if (w->threads[k] == tids[i]) {
                found = 1;
                cr_assert_eq(w->call_counts[k], NCALLS);
                cr_assert_eq(w->total_ns[k], 2 * NCALLS);
            }
        cr_assert(found, "thread %lld missing", (long long)tids[i]);
    }
    for (size_t c = 0; c < w->ncalls; c++) {
        int known = 0;
        for (int i = 0; i < NTHREADS; i++)
            known |= w->call_threads[c] == tids[i];
        cr_assert(known);
    }
    cr_assert_eq(find(&t, "odd-a")->nthreads, NTHREADS);
    sl_timing_free(&t);
}

Test(region_table, clock_is_monotonic_ns)
{
    int64_t a = sl_rt_now_ns(), b = sl_rt_now_ns();
    cr_assert_gt(a, 0);
    cr_assert_geq(b, a);
}

/* ---- the hot path's compare: a cached pointer, new contents ---- */

/* The cache slot of tag as the hot path fills it; e only lends its length. */
static hot cached(const char *tag, sl_rt_entry *e)
{
    hot h;
    memset(&h, 0, sizeof h);
    memset(e, 0, sizeof *e);
    e->len = strlen(tag);
    sl_rt_hot_fill(&h, tag, e);
    cr_assert_eq(h.ptr, tag, "a short tag is cached");
    return h;
}

Test(hot_compare, same_pointer_new_contents)
{
    /* Every offset within a word, tags of 1 to 3 words: the same bytes
     * match, any change of a tag byte or of the NUL does not, bytes
     * around the tag do not matter. */
    for (size_t off = 0; off < 8; off++)
        for (size_t len = 1; off + len + 1 <= 8 * HOT_WORDS; len++) {
            _Alignas(8) char buf[48];
            memset(buf, 'x', sizeof buf);
            char *tag = buf + 8 + off;
            for (size_t i = 0; i < len; i++)
                tag[i] = (char)('a' + i % 26);
            tag[len] = '\0';
            sl_rt_entry e;
            hot h = cached(tag, &e);
            cr_assert(sl_rt_hot_same(&h), "off %zu len %zu: unchanged", off, len);
            buf[8 + off - 1] = 'y';                 /* before the tag */
            buf[8 + off + len + 1] = 'y';           /* after its NUL */
            cr_assert(sl_rt_hot_same(&h), "off %zu len %zu: bytes outside the tag", off, len);
            for (size_t i = 0; i <= len; i++) {
                char was = tag[i];
                tag[i] = i == len ? 'z' : 'Z';      /* longer string, or another char */
                cr_assert(!sl_rt_hot_same(&h), "off %zu len %zu: byte %zu changed", off, len, i);
                tag[i] = was;
            }
            tag[len - 1] = '\0';                    /* shorter by one */
            cr_assert(!sl_rt_hot_same(&h), "off %zu len %zu: shorter", off, len);
        }
}

Test(hot_compare, shorter_string_before_a_guard_page)
{
    /* The cached tag reached into the next page; the new string at the same
     * pointer ends before it and that page is now PROT_NONE: the compare
     * must not load from it (it would be SIGSEGV). Every string length
     * that ends in the first page, at every offset. */
    long page = sysconf(_SC_PAGESIZE);
    int cases = 0;
    for (size_t off = 1; off < 8 * HOT_WORDS - 1; off++)
        for (size_t len = 0; len < off; len++) {
            char *base = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            cr_assert_neq(base, MAP_FAILED);
            char *tag = base + page - off;
            size_t long_len = 8 * HOT_WORDS - 1 - ((uintptr_t)tag & 7);
            if (long_len < off || len >= long_len) {
                munmap(base, (size_t)(2 * page));
                continue;       /* the long tag must reach into the next page */
            }
            memset(tag, 'q', long_len);
            tag[long_len] = '\0';
            sl_rt_entry e;
            hot h = cached(tag, &e);
            memset(tag, 'q', len);
            tag[len] = '\0';
            cr_assert_eq(mprotect(base + page, (size_t)page, PROT_NONE), 0);
            cr_assert(!sl_rt_hot_same(&h), "off %zu len %zu", off, len);
            munmap(base, (size_t)(2 * page));
            cases++;
        }
    cr_assert_gt(cases, 200, "only %d cases ran", cases);
}

/* ---- the forwarding entry points: LIKWID's call, then the hot path ---- */

static int real_calls, real_rc;
static const char *real_tag;

static int fake_real(const char *tag)
{
    real_calls++;
    real_tag = tag;
    return real_rc;
}

/* The TSC clock where the CPU has one, so that the fast branch (the thread's
 * one TLS pointer, the cached slot, the masked compare) is what runs; the
 * general branch otherwise. */
static void fwd_setup(void)
{
    sl_rt_configure(1000, 0);
    sl_rt_clock_force_tsc();
    real_calls = 0;
    real_rc = 0;
}

Test(hot_path, fwd_forwards_first_and_times, .init = fwd_setup)
{
    static const char tag[] = "solve";
    real_rc = 7;
    for (int i = 0; i < 3; i++) {       /* the first creates, the others hit the cache */
        cr_assert_eq(sl_rt_start_fwd(tag, fake_real), 7, "Start returns LIKWID's result");
        cr_assert_eq(real_tag, tag);
        cr_assert_eq(sl_rt_stop_fwd(tag, fake_real), 7, "Stop returns LIKWID's result");
    }
    cr_assert_eq(real_calls, 6);
    sl_timing t = collect();
    const sl_timing_region *r = find(&t, "solve");
    cr_assert_not_null(r);
    cr_assert_eq(r->nthreads, 1);
    cr_assert_eq(r->call_counts[0], 3);
    cr_assert_eq(r->ncalls, 3);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_leq(r->start_times[i], r->end_times[i]);
        cr_assert(i == 0 || r->start_times[i] >= r->end_times[i - 1], "calls in order");
    }
    cr_assert_eq(r->total_ns[0] >= r->max_ns[0] && r->max_ns[0] >= r->min_ns[0], 1);
    sl_timing_free(&t);
}

Test(hot_path, fwd_stop_not_open_is_efault_without_likwid, .init = fwd_setup)
{
    cr_assert_eq(sl_rt_stop_fwd("never", fake_real), -EFAULT);
    cr_assert_eq(real_calls, 0, "LIKWID is not called for a region never started");
    cr_assert_eq(sl_rt_start_fwd("twice", fake_real), 0);
    cr_assert_eq(sl_rt_stop_fwd("twice", fake_real), 0);
    cr_assert_eq(sl_rt_stop_fwd("twice", fake_real), -EFAULT, "a cached region not open");
    cr_assert_eq(real_calls, 2);
    cr_assert_eq(sl_rt_start_fwd("nest", fake_real), 0);
    cr_assert_eq(sl_rt_start_fwd("nest", fake_real), 0, "a nested start still forwards");
    cr_assert_eq(real_calls, 4);
    sl_timing t = collect();
    cr_assert_eq(find(&t, "never")->unmatched_stops, 1);
    cr_assert_eq(find(&t, "twice")->unmatched_stops, 1);
    cr_assert_eq(find(&t, "twice")->call_counts[0], 1);
    cr_assert_eq(find(&t, "nest")->nested_starts, 1);
    cr_assert_eq(find(&t, "nest")->open_at_close, 1);
    sl_timing_free(&t);
}

Test(hot_path, fortran_one_buffer_new_contents, .init = fwd_setup)
{
    /* gfortran's wrapper trims the tag into one stack buffer: the same
     * pointer, each call with other contents. */
    _Alignas(8) char buf[32];
    strcpy(buf, "alpha");
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(sl_rt_start_fwd(buf, fake_real), 0);
        cr_assert_eq(sl_rt_stop_fwd(buf, fake_real), 0);
    }
    strcpy(buf, "beta");
    cr_assert_eq(sl_rt_start_fwd(buf, fake_real), 0);
    cr_assert_eq(sl_rt_stop_fwd(buf, fake_real), 0);
    strcpy(buf, "alphb");               /* same length, last byte differs */
    cr_assert_eq(sl_rt_start_fwd(buf, fake_real), 0);
    strcpy(buf, "alpha");               /* stopping a region not open here */
    cr_assert_eq(sl_rt_stop_fwd(buf, fake_real), -EFAULT);
    sl_timing t = collect();
    cr_assert_eq(find(&t, "alpha")->call_counts[0], 2);
    cr_assert_eq(find(&t, "alpha")->unmatched_stops, 1);
    cr_assert_eq(find(&t, "beta")->call_counts[0], 1);
    cr_assert_eq(find(&t, "alphb")->open_at_close, 1);
    sl_timing_free(&t);
}

Test(hot_path, tag_ending_before_an_unmapped_page, .init = fwd_setup)
{
    /* A tag cached while it reached into the next page; then a shorter one
     * at the same pointer, ending before that page, now unmapped: Start and
     * Stop must not read it. */
    long page = sysconf(_SC_PAGESIZE);
    char *base = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(base, MAP_FAILED);
    char *tag = base + page - 5;        /* 5 bytes in the first page */
    strcpy(tag, "longer");              /* its NUL and 'r' in the second */
    cr_assert_eq(sl_rt_start_fwd(tag, fake_real), 0);
    cr_assert_eq(sl_rt_stop_fwd(tag, fake_real), 0);
    strcpy(tag, "shor");                /* ends with the first page */
    cr_assert_eq(munmap(base + page, (size_t)page), 0);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(sl_rt_start_fwd(tag, fake_real), 0);
        cr_assert_eq(sl_rt_stop_fwd(tag, fake_real), 0);
    }
    sl_timing t = collect();
    cr_assert_eq(find(&t, "longer")->call_counts[0], 1);
    cr_assert_eq(find(&t, "shor")->call_counts[0], 2);
    sl_timing_free(&t);
    munmap(base, (size_t)page);
}

/* A 1 MiB tag is not hashed byte by byte on every call: 1000 pairs through
 * the hot path take well under a second of CPU time (about 1.4 ms per call,
 * 2.8 s, when it was). */
Test(hot_path, one_mib_tag_costs_a_strlen_and_a_memcmp, .init = fwd_setup)
{
    size_t n = 1 << 20;
    char *tag = malloc(n + 1);
    memset(tag, 'r', n);
    tag[n] = '\0';
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    for (int i = 0; i < 1000; i++) {
        cr_assert_eq(sl_rt_start_fwd(tag, fake_real), 0);
        cr_assert_eq(sl_rt_stop_fwd(tag, fake_real), 0);
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    cr_assert_lt(s, 1.0, "1000 pairs of a 1 MiB tag took %.2f s of CPU time", s);
    sl_timing t = collect();
    cr_assert_eq(find(&t, tag)->call_counts[0], 1000);
    sl_timing_free(&t);
    free(tag);
}

/* Threads that ended one after another may get the same id back from the
 * kernel (pid_max): their entries of one tag make one row per id, the calls
 * added, min and max over both, every per-call record kept. */
static const sl_tc_sample reused_samples[] = {
    {.entry = 0, .tid = 7, .start = 0, .end = 5},
    {.entry = 1, .tid = 9, .start = 1, .end = 2},
    {.entry = 2, .tid = 7, .start = 10, .end = 12},
    {.entry = 2, .tid = 7, .start = 20, .end = 29},
};
static size_t reused_at;

static void reused_rewind(void *ctx)
{
    (void)ctx;
    reused_at = 0;
}

static int reused_next(void *ctx, sl_tc_sample *s)
{
    (void)ctx;
    if (reused_at >= sizeof reused_samples / sizeof reused_samples[0])
        return 0;
    *s = reused_samples[reused_at++];
    return 1;
}

Test(timing_collect, reused_thread_id_one_row)
{
    sl_tc_entry e[3] = {
        {.tag = "req", .len = 3, .tid = 7, .calls = 1, .dropped_min = INT64_MAX, .dropped_max = INT64_MIN},
        {.tag = "req", .len = 3, .tid = 9, .calls = 1, .dropped_min = INT64_MAX, .dropped_max = INT64_MIN},
        {.tag = "req", .len = 3, .tid = 7, .calls = 2, .dropped_min = INT64_MAX, .dropped_max = INT64_MIN},
    };
    sl_tick_line line = {0};
    sl_tc_samples walk = {reused_rewind, reused_next, NULL};
    sl_timing t;
    sl_timing_init(&t);
    cr_assert_eq(sl_timing_collect(&t, e, 3, &line, &walk), 0);
    cr_assert_eq(t.nregions, 1);
    const sl_timing_region *r = &t.regions[0];
    /* Per row: thread id, calls, total, min, max. */
    const int64_t want[2][5] = {{7, 3, 5 + 2 + 9, 2, 9}, {9, 1, 1, 1, 1}};
    cr_assert_eq(r->nthreads, 2);
    for (size_t i = 0; i < 2; i++) {
        const int64_t got[5] = {r->threads[i], r->call_counts[i], r->total_ns[i], r->min_ns[i],
                                r->max_ns[i]};
        cr_assert_arr_eq(got, want[i], sizeof got, "row %zu", i);
    }
    cr_assert(r->ncalls == 4 && r->dropped_calls == 0, "%zu calls kept, %lld dropped", r->ncalls,
              (long long)r->dropped_calls);
    sl_timing_free(&t);
}
