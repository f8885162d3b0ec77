/* Helpers for the wire tests (see wire_helpers.h). */
#include "wire_helpers.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wire.h"

static char *slurp(int fd, size_t *len)
{
    off_t end = lseek(fd, 0, SEEK_END);
    cr_assert(end >= 0);
    char *b = malloc((size_t)end + 1);
    cr_assert(b);
    cr_assert(pread(fd, b, (size_t)end, 0) == end);
    b[end] = '\0';
    *len = (size_t)end;
    return b;
}

char *encode_run(const sl_run *run, size_t *len, int *rc)
{
    int fd = memfd_create("wire", 0);
    cr_assert(fd >= 0);
    *rc = sl_wire_write_run(fd, run);
    char *b = slurp(fd, len);
    close(fd);
    return b;
}

char *encode_likwid(const sl_likwid *lw, size_t *len, int *rc)
{
    int fd = memfd_create("wire", 0);
    cr_assert(fd >= 0);
    *rc = sl_wire_write_likwid(fd, lw);
    char *b = slurp(fd, len);
    close(fd);
    return b;
}

static double bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

void add_region(sl_likwid *lw, const char *tag, size_t tag_len, int64_t gid, size_t T,
                size_t E, size_t M, int has_names)
{
    sl_region *r = sl_likwid_add(lw, tag, tag_len, gid, has_names ? "FLOPS_DP" : "",
                                 has_names ? SL_SOURCE_FULL_API : SL_SOURCE_MARKER_FILE, T, E,
                                 M, has_names);
    cr_assert(r);
    for (size_t t = 0; t < T; t++) {
        r->cpus[t] = (int64_t)(T - t) - 2;
        r->times[t] = 0.1 * (double)t + 1e-300;
        r->call_counts[t] = (int64_t)t * 1000000007LL;
    }
    for (size_t e = 0; e < E; e++) {
        if (has_names) {
            char n[64];
            snprintf(n, sizeof n, "EV %zu%%\xff", e);
            cr_assert(sl_set_string(&r->event_names[e], n) == 0);
            snprintf(n, sizeof n, "PMC%zu", e);
            cr_assert(sl_set_string(&r->counter_names[e], e == 1 ? "" : n) == 0);
        }
        for (size_t t = 0; t < T; t++)
            r->events[e * T + t] = (double)(e * 1000 + t) * 1.000000001;
    }
    for (size_t m = 0; m < M; m++) {
        cr_assert(sl_set_string(&r->metric_names[m], m ? "DP [MFLOP/s]" : "") == 0);
        for (size_t t = 0; t < T; t++)
            r->metrics[m * T + t] = -(double)m / 3.0;
    }
}

void build_rich_run(sl_run *run)
{
    cr_assert(sl_run_init(run) == 0);
    run->rank = 3;
    run->mpi_rank = 3;
    run->pid = INT64_MAX;
    run->parent_pid = INT64_MAX - 1;
    cr_assert(sl_set_string(&run->hostname, "node 1%") == 0);
    cr_assert(sl_set_string(&run->cpu_model, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz") == 0);
    cr_assert(sl_set_string(&run->kernel_release, "6.1.0-28-amd64") == 0);
    cr_assert(sl_set_string(&run->clock_source, "tsc") == 0);
    run->tsc_hz = 2400000000;
    cr_assert(sl_set_string(&run->executable, "/a b/\xc3\xa9x\xfe") == 0);
    cr_assert(sl_set_string(&run->command_line, "./x --tag='a b'\t\n\r=%=") == 0);
    cr_assert(sl_set_string(&run->likwid_status, "") == 0);
    cr_assert(sl_set_string(&run->likwid_version, "5.5.1") == 0);
    cr_assert(sl_run_add_env(run, "LIKWID_EVENTS", "FLOPS_DP|MEM") == 0);
    cr_assert(sl_run_add_env(run, "LIKWID_EMPTY", "") == 0);
    cr_assert(sl_run_add_env(run, "", "=") == 0);
    run->meta.mpi_size = 64;
    run->meta.omp_num_threads = INT64_MAX;
    run->meta.start_time_ns = INT64_MIN;
    run->meta.finalize_time_ns = 0;
    cr_assert(sl_set_string(&run->meta.working_directory, "/home/a b/%\xff") == 0);
    cr_assert(sl_set_string(&run->meta.user, "\xc3\xa9mile") == 0);
    run->meta.uid = 4294967294;
    cr_assert(sl_set_string(&run->meta.run_id, "slurm-4711.0") == 0);
    cr_assert(sl_run_meta_add_var(&run->meta, "SLURM_JOB_ID", "77") == 0);
    cr_assert(sl_run_meta_add_var(&run->meta, "SLURM_EMPTY", "") == 0);

    cr_assert(sl_set_string(&run->timing.clock, "CLOCK_MONOTONIC") == 0);
    run->timing.origin_unix_ns = INT64_MIN;
    sl_timing_region *tr = sl_timing_add(&run->timing, "", 0, 2, 3);
    cr_assert(tr);
    tr->dropped_calls = 5;
    tr->open_at_close = -1;
    tr->unmatched_stops = 7;
    tr->nested_starts = INT64_MAX;
    for (size_t t = 0; t < 2; t++) {
        tr->threads[t] = 1000 + (int64_t)t;
        tr->call_counts[t] = 2;
        tr->total_ns[t] = 30;
        tr->min_ns[t] = 10;
        tr->max_ns[t] = 20;
    }
    for (size_t c = 0; c < 3; c++) {
        tr->call_threads[c] = 1000;
        tr->start_times[c] = (int64_t)c * 100;
        tr->end_times[c] = (int64_t)c * 100 + 10;
    }
    cr_assert(sl_timing_add(&run->timing, "no threads", 10, 0, 0));
    static const char awk[] = "a b\x01%\xff\xfe=";
    cr_assert(sl_timing_add(&run->timing, awk, sizeof awk - 1, 1, 0));

    run->likwid.source = SL_SOURCE_FULL_API;
    add_region(&run->likwid, "solve-step", 10, 0, 2, 6, 3, 1);
    sl_region *r = &run->likwid.regions[0];
    r->events[0] = NAN;
    r->events[1] = -INFINITY;
    r->events[2] = INFINITY;
    r->events[3] = -0.0;
    r->events[4] = bits(0x7ff4000000000abcULL);     /* signalling nan with a payload */
    r->events[5] = bits(0x0000000000000001ULL);     /* smallest subnormal */
    r->metrics[0] = bits(0xfff8000000000001ULL);
    add_region(&run->likwid, "", 0, 1, 0, 0, 0, 1);            /* 0 threads, 0 events */
    add_region(&run->likwid, awk, sizeof awk - 1, -5, 3, 0, 2, 0); /* no names */
    add_region(&run->likwid, "wide", 4, 2, 2, 2000, 1, 1);     /* 2000 events */
    add_region(&run->likwid, "zero threads", 12, 0, 0, 5, 2, 1); /* E and M, T = 0 */
}

void build_small_run(sl_run *run)
{
    cr_assert(sl_run_init(run) == 0);
    cr_assert(sl_set_string(&run->hostname, "h") == 0);
    cr_assert(sl_run_add_env(run, "LIKWID_MODE", "1") == 0);
    cr_assert(sl_set_string(&run->timing.clock, "CLOCK_MONOTONIC") == 0);
    sl_timing_region *tr = sl_timing_add(&run->timing, "r", 1, 1, 1);
    cr_assert(tr);
    tr->threads[0] = 42;
    run->likwid.source = SL_SOURCE_MARKER_FILE;
    add_region(&run->likwid, "r", 1, 0, 1, 2, 1, 1);
}

static uint64_t u64(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void same_bytes(const char *a, size_t al, const char *b, size_t bl, const char *what)
{
    cr_expect(al == bl && memcmp(a, b, al) == 0, "%s differs", what);
}

static void same_str(const char *a, const char *b, const char *what)
{
    cr_expect(a && b && strcmp(a, b) == 0, "%s: '%s' != '%s'", what, a ? a : "(null)",
              b ? b : "(null)");
}

void expect_likwid_equal(const sl_likwid *a, const sl_likwid *b)
{
    cr_expect_eq(a->source, b->source);
    cr_assert_eq(a->nregions, b->nregions);
    for (size_t i = 0; i < a->nregions; i++) {
        const sl_region *x = &a->regions[i], *y = &b->regions[i];
        same_bytes(x->tag, x->tag_len, y->tag, y->tag_len, "tag");
        cr_expect_eq(x->group_id, y->group_id);
        same_str(x->group_name, y->group_name, "group name");
        cr_expect_eq(x->source, y->source);
        cr_assert_eq(x->nthreads, y->nthreads);
        cr_assert_eq(x->nevents, y->nevents);
        cr_assert_eq(x->nmetrics, y->nmetrics);
        cr_assert_eq(x->has_names, y->has_names);
        size_t T = x->nthreads;
        for (size_t t = 0; t < T; t++) {
            cr_expect_eq(x->cpus[t], y->cpus[t]);
            cr_expect_eq(u64(x->times[t]), u64(y->times[t]));
            cr_expect_eq(x->call_counts[t], y->call_counts[t]);
        }
        for (size_t e = 0; e < x->nevents; e++) {
            if (x->has_names) {
                same_str(x->event_names[e], y->event_names[e], "event name");
                same_str(x->counter_names[e], y->counter_names[e], "counter name");
            }
            for (size_t t = 0; t < T; t++)
                cr_expect_eq(u64(x->events[e * T + t]), u64(y->events[e * T + t]),
                             "region %zu event %zu thread %zu", i, e, t);
        }
        for (size_t m = 0; m < x->nmetrics; m++) {
            same_str(x->metric_names[m], y->metric_names[m], "metric name");
            for (size_t t = 0; t < T; t++)
                cr_expect_eq(u64(x->metrics[m * T + t]), u64(y->metrics[m * T + t]));
        }
    }
}

void expect_run_equal(const sl_run *a, const sl_run *b)
{
    cr_expect_eq(a->rank, b->rank);
    cr_expect_eq(a->mpi_rank, b->mpi_rank);
    cr_expect_eq(a->pid, b->pid);
    cr_expect_eq(a->parent_pid, b->parent_pid);
    same_str(a->hostname, b->hostname, "hostname");
    same_str(a->cpu_model, b->cpu_model, "cpu_model");
    same_str(a->kernel_release, b->kernel_release, "kernel_release");
    same_str(a->clock_source, b->clock_source, "clock_source");
    cr_expect_eq(a->tsc_hz, b->tsc_hz);
    same_str(a->executable, b->executable, "executable");
    same_str(a->command_line, b->command_line, "command_line");
    same_str(a->likwid_status, b->likwid_status, "likwid_status");
    same_str(a->likwid_version, b->likwid_version, "likwid_version");
    cr_assert_eq(a->nenv, b->nenv);
    for (size_t i = 0; i < a->nenv; i++) {
        same_str(a->env[i].name, b->env[i].name, "env name");
        same_str(a->env[i].value, b->env[i].value, "env value");
    }
    cr_expect_eq(a->meta.mpi_size, b->meta.mpi_size);
    cr_expect_eq(a->meta.omp_num_threads, b->meta.omp_num_threads);
    cr_expect_eq(a->meta.start_time_ns, b->meta.start_time_ns);
    cr_expect_eq(a->meta.finalize_time_ns, b->meta.finalize_time_ns);
    same_str(a->meta.working_directory, b->meta.working_directory, "working_directory");
    same_str(a->meta.user, b->meta.user, "user");
    cr_expect_eq(a->meta.uid, b->meta.uid);
    same_str(a->meta.run_id, b->meta.run_id, "run_id");
    cr_assert_eq(a->meta.nvars, b->meta.nvars);
    for (size_t i = 0; i < a->meta.nvars; i++) {
        same_str(a->meta.vars[i].name, b->meta.vars[i].name, "metadata variable name");
        same_str(a->meta.vars[i].value, b->meta.vars[i].value, "metadata variable value");
    }
    same_str(a->timing.clock, b->timing.clock, "clock");
    cr_expect_eq(a->timing.origin_unix_ns, b->timing.origin_unix_ns);
    cr_assert_eq(a->timing.nregions, b->timing.nregions);
    for (size_t i = 0; i < a->timing.nregions; i++) {
        const sl_timing_region *x = &a->timing.regions[i], *y = &b->timing.regions[i];
        same_bytes(x->tag, x->tag_len, y->tag, y->tag_len, "timing tag");
        cr_expect_eq(x->dropped_calls, y->dropped_calls);
        cr_expect_eq(x->open_at_close, y->open_at_close);
        cr_expect_eq(x->unmatched_stops, y->unmatched_stops);
        cr_expect_eq(x->nested_starts, y->nested_starts);
        cr_assert_eq(x->nthreads, y->nthreads);
        cr_assert_eq(x->ncalls, y->ncalls);
        for (size_t t = 0; t < x->nthreads; t++) {
            cr_expect_eq(x->threads[t], y->threads[t]);
            cr_expect_eq(x->call_counts[t], y->call_counts[t]);
            cr_expect_eq(x->total_ns[t], y->total_ns[t]);
            cr_expect_eq(x->min_ns[t], y->min_ns[t]);
            cr_expect_eq(x->max_ns[t], y->max_ns[t]);
        }
        for (size_t c = 0; c < x->ncalls; c++) {
            cr_expect_eq(x->call_threads[c], y->call_threads[c]);
            cr_expect_eq(x->start_times[c], y->start_times[c]);
            cr_expect_eq(x->end_times[c], y->end_times[c]);
        }
    }
    expect_likwid_equal(&a->likwid, &b->likwid);
}
