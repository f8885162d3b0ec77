/* Round trip: the fixture runs written by sl_h5_write, read back with the
 * raw HDF5 C API (types, shapes, values, every attribute) and with
 * sl_h5_read (equal to the input). */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "h5check.h"
#include "h5read.h"
#include "h5write.h"
#include "labels.h"
#include "names.h"

static char *dir;
static char *file;
static sl_run runs[2];

static void setup(void)
{
    fixture_run(&runs[0], 0);
    fixture_run(&runs[1], 3);
    dir = fixture_dir();
    cr_assert_geq(asprintf(&file, "%s/out.h5", dir), 0);
    sl_diag d;
    sl_diag_init(&d);
    char *written = NULL;
    int rc = sl_h5_write(file, runs, 2, &written, &d);
    cr_assert_eq(rc, 0, "write failed: %s", d.kept ? d.lines[0] : "?");
    cr_assert_str_eq(written, file);
    cr_assert_eq(d.count, 0u, "diag: %s", d.kept ? d.lines[0] : "");
    free(written);
    sl_diag_free(&d);
}

static void teardown(void)
{
    sl_run_free(&runs[0]);
    sl_run_free(&runs[1]);
    fixture_rmdir(dir);
    free(dir);
    free(file);
}

TestSuite(roundtrip, .init = setup, .fini = teardown);

static void expect_str(hid_t obj, const char *name, const char *want)
{
    char *v = chk_str_attr(obj, name);
    cr_expect_str_eq(v, want, "attr %s", name);
    free(v);
}

/* attr tag (+ tag_bytes exactly when the tag is not UTF-8) */
static void expect_tag(hid_t g, const char *tag, size_t len)
{
    char *t = chk_str_attr(g, "tag");
    size_t nb;
    unsigned char *bytes = chk_u8_attr(g, "tag_bytes", &nb);
    if (sl_utf8_valid(tag, len)) {
        cr_expect_eq(strlen(t), len);
        cr_expect(memcmp(t, tag, len) == 0, "tag differs");
        cr_expect_null(bytes, "tag_bytes on a UTF-8 tag");
    } else {
        char *shown = sl_tag_display(tag, len);
        cr_expect_str_eq(t, shown);
        free(shown);
        cr_assert_not_null(bytes, "tag_bytes missing");
        cr_expect_eq(nb, len);
        cr_expect(memcmp(bytes, tag, len) == 0, "tag_bytes differ");
    }
    free(bytes);
    free(t);
}

static hid_t open_file(void)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    return f;
}

Test(roundtrip, root_and_rank_attributes)
{
    hid_t f = open_file();
    expect_str(f, "format", "scope-likwid");
    cr_expect_eq(chk_i64_attr(f, "format_version"), 2);
    char *by = chk_str_attr(f, "created_by");
    cr_expect_str_eq(by, "scope-likwid " SCOPE_LIKWID_VERSION);
    free(by);
    cr_expect_eq(chk_nlinks(f), 3u); /* two ranks and /metadata */
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "rank%" PRId64, runs[i].rank);
        hid_t g = H5Gopen2(f, name, H5P_DEFAULT);
        cr_assert_geq(g, 0, "%s missing", name);
        expect_str(g, "hostname", "node\\xFF01"); /* not UTF-8 in the run */
        expect_str(g, "executable", runs[i].executable);
        expect_str(g, "command_line", runs[i].command_line);
        expect_str(g, "likwid_status", runs[i].likwid_status);
        expect_str(g, "likwid_version", runs[i].likwid_version);
        cr_expect_eq(chk_i64_attr(g, "pid"), runs[i].pid);
        cr_expect_eq(chk_i64_attr(g, "mpi_rank"), runs[i].mpi_rank);
        H5Gclose(g);
    }
    H5Fclose(f);
}

Test(roundtrip, timing_raw)
{
    hid_t f = open_file();
    const sl_timing *t = &runs[0].timing;
    hid_t tg = H5Gopen2(f, "rank0/timing", H5P_DEFAULT);
    cr_assert_geq(tg, 0);
    expect_str(tg, "clock", "CLOCK_MONOTONIC");
    cr_expect_eq(chk_i64_attr(tg, "origin_unix_ns"), t->origin_unix_ns);
    hid_t regs = H5Gopen2(tg, "regions", H5P_DEFAULT);
    cr_assert_geq(regs, 0);
    cr_expect_eq(chk_nlinks(regs), t->nregions);
    char **names = NULL;
    cr_assert_eq(sl_timing_names(t, &names), 0);
    for (size_t i = 0; i < t->nregions; i++) {
        const sl_timing_region *r = &t->regions[i];
        char *name = strdup(names[i]);
        hid_t g = H5Gopen2(regs, name, H5P_DEFAULT);
        cr_assert_geq(g, 0, "timing region %zu missing", i);
        expect_tag(g, r->tag, r->tag_len);
        cr_expect_eq(chk_i64_attr(g, "dropped_calls"), r->dropped_calls);
        cr_expect_eq(chk_i64_attr(g, "open_at_close"), r->open_at_close);
        cr_expect_eq(chk_i64_attr(g, "unmatched_stops"), r->unmatched_stops);
        cr_expect_eq(chk_i64_attr(g, "nested_starts"), r->nested_starts);
        const struct {
            const char *n;
            const int64_t *v;
            size_t len;
        } d[] = {{"threads", r->threads, r->nthreads},       {"call_counts", r->call_counts, r->nthreads},
                 {"total_ns", r->total_ns, r->nthreads},     {"min_ns", r->min_ns, r->nthreads},
                 {"max_ns", r->max_ns, r->nthreads},         {"call_threads", r->call_threads, r->ncalls},
                 {"start_times", r->start_times, r->ncalls}, {"end_times", r->end_times, r->ncalls}};
        for (size_t k = 0; k < sizeof d / sizeof d[0]; k++) {
            int64_t *v = chk_data(g, d[k].n, 0, 1, d[k].len, 0);
            cr_expect(memcmp(v, d[k].v, d[k].len * 8) == 0, "%s of region %zu", d[k].n, i);
            free(v);
        }
        H5Gclose(g);
        free(name);
    }
    sl_timing_names_free(names, t->nregions);
    H5Gclose(regs);
    H5Gclose(tg);
    H5Fclose(f);
}

static int tag_in_groups(const sl_likwid *lw, const sl_region *r)
{
    for (size_t j = 0; j < lw->nregions; j++) {
        const sl_region *o = &lw->regions[j];
        if (o->tag_len == r->tag_len && memcmp(o->tag, r->tag, r->tag_len) == 0 &&
            o->group_id != r->group_id)
            return 1;
    }
    return 0;
}

static void expect_strv(hid_t g, const char *name, char *const *want, size_t n)
{
    size_t got_n;
    char **got = chk_strv_attr(g, name, &got_n);
    cr_assert_eq(got_n, n, "%s has %zu entries, want %zu", name, got_n, n);
    for (size_t i = 0; i < n; i++)
        cr_expect_str_eq(got[i], want[i], "%s[%zu]", name, i);
    chk_strv_free(got, got_n);
}

Test(roundtrip, likwid_raw)
{
    hid_t f = open_file();
    const sl_likwid *lw = &runs[0].likwid;
    hid_t lg = H5Gopen2(f, "rank0/likwid", H5P_DEFAULT);
    cr_assert_geq(lg, 0);
    cr_expect_eq(chk_i64_attr(lg, "num_regions"), (int64_t)lw->nregions);
    expect_str(lg, "source", "full_api");
    for (size_t i = 0; i < runs[0].nenv; i++)
        expect_str(lg, runs[0].env[i].name, runs[0].env[i].value);
    hid_t regs = H5Gopen2(lg, "regions", H5P_DEFAULT);
    cr_assert_geq(regs, 0);
    cr_expect_eq(chk_nlinks(regs), lw->nregions, "names not distinct?");
    int saw_multi = 0, saw_bytes = 0;
    for (size_t i = 0; i < lw->nregions; i++) {
        const sl_region *r = &lw->regions[i];
        int multi = tag_in_groups(lw, r);
        saw_multi += multi;
        saw_bytes += !sl_utf8_valid(r->tag, r->tag_len);
        char *name = sl_name_encode(r->tag, r->tag_len, r->group_id, multi);
        hid_t g = H5Gopen2(regs, name, H5P_DEFAULT);
        cr_assert_geq(g, 0, "likwid region %zu missing", i);
        expect_tag(g, r->tag, r->tag_len);
        expect_str(g, "group_name", r->group_name);
        expect_str(g, "source", sl_source_name(r->source));
        cr_expect_eq(chk_i64_attr(g, "group_id"), r->group_id);
        char **labels = sl_event_labels(r);
        char **counters = calloc(r->nevents + 1, sizeof *counters);
        for (size_t e = 0; e < r->nevents; e++)
            counters[e] = r->has_names ? r->counter_names[e] : "";
        expect_strv(g, "event_names", r->has_names ? r->event_names : labels, r->nevents);
        expect_strv(g, "counter_names", counters, r->nevents);
        expect_strv(g, "event_labels", labels, r->nevents);
        expect_strv(g, "metric_names", r->metric_names, r->nmetrics);
        free(counters);
        sl_labels_free(labels, r->nevents);
        size_t T = r->nthreads;
        int64_t *cpus = chk_data(g, "cpus", 0, 1, T, 0);
        double *times = chk_data(g, "times", 1, 1, T, 0);
        int64_t *calls = chk_data(g, "call_counts", 0, 1, T, 0);
        double *ev = chk_data(g, "events", 1, 2, r->nevents, T);
        double *met = chk_data(g, "metrics", 1, 2, r->nmetrics, T);
        cr_expect(memcmp(cpus, r->cpus, T * 8) == 0);
        cr_expect(memcmp(times, r->times, T * 8) == 0);
        cr_expect(memcmp(calls, r->call_counts, T * 8) == 0);
        cr_expect(memcmp(ev, r->events, r->nevents * T * 8) == 0);
        cr_expect(memcmp(met, r->metrics, r->nmetrics * T * 8) == 0);
        free(cpus);
        free(times);
        free(calls);
        free(ev);
        free(met);
        H5Gclose(g);
        free(name);
    }
    cr_expect_eq(saw_multi, 4, "fixture: two tags in two groups each");
    cr_expect_eq(saw_bytes, 2, "fixture: a non-UTF-8 tag in two groups");
    H5Gclose(regs);
    H5Gclose(lg);
    H5Fclose(f);
}

Test(roundtrip, marker_api_snapshot_has_one_cpu)
{
    hid_t f = open_file();
    hid_t g = H5Gopen2(f, "rank0/likwid/regions/snapshot", H5P_DEFAULT);
    cr_assert_geq(g, 0);
    int64_t *cpus = chk_data(g, "cpus", 0, 1, 1, 0);
    cr_expect_eq(cpus[0], 7);
    free(cpus);
    free(chk_data(g, "events", 1, 2, 3, 1));
    free(chk_data(g, "metrics", 1, 2, 0, 1)); /* written though empty */
    H5Gclose(g);
    H5Fclose(f);
}

/* ---- sl_h5_read ---- */

static void same_i64(const int64_t *a, const int64_t *b, size_t n, const char *what)
{
    cr_expect(n == 0 || memcmp(a, b, n * sizeof *a) == 0, "%s differs", what);
}

static void same_timing(const sl_timing *a, const sl_timing *b)
{
    cr_expect_str_eq(a->clock, b->clock);
    cr_expect_eq(a->origin_unix_ns, b->origin_unix_ns);
    cr_assert_eq(a->nregions, b->nregions);
    for (size_t i = 0; i < a->nregions; i++) {
        const sl_timing_region *x = &a->regions[i], *y = &b->regions[i];
        cr_assert_eq(x->tag_len, y->tag_len, "timing region %zu", i);
        cr_expect(memcmp(x->tag, y->tag, x->tag_len) == 0, "timing tag %zu", i);
        cr_expect_eq(x->dropped_calls, y->dropped_calls);
        cr_expect_eq(x->open_at_close, y->open_at_close);
        cr_expect_eq(x->unmatched_stops, y->unmatched_stops);
        cr_expect_eq(x->nested_starts, y->nested_starts);
        cr_assert_eq(x->nthreads, y->nthreads);
        cr_assert_eq(x->ncalls, y->ncalls);
        same_i64(x->threads, y->threads, x->nthreads, "threads");
        same_i64(x->call_counts, y->call_counts, x->nthreads, "call_counts");
        same_i64(x->total_ns, y->total_ns, x->nthreads, "total_ns");
        same_i64(x->min_ns, y->min_ns, x->nthreads, "min_ns");
        same_i64(x->max_ns, y->max_ns, x->nthreads, "max_ns");
        same_i64(x->call_threads, y->call_threads, x->ncalls, "call_threads");
        same_i64(x->start_times, y->start_times, x->ncalls, "start_times");
        same_i64(x->end_times, y->end_times, x->ncalls, "end_times");
    }
}

static void same_region(const sl_region *x, const sl_region *y, size_t i)
{
    cr_assert_eq(x->tag_len, y->tag_len, "likwid region %zu", i);
    cr_expect(memcmp(x->tag, y->tag, x->tag_len) == 0, "likwid tag %zu", i);
    cr_expect_eq(x->group_id, y->group_id);
    cr_expect_str_eq(x->group_name, y->group_name);
    cr_expect_eq(x->source, y->source);
    cr_assert_eq(x->nthreads, y->nthreads);
    cr_assert_eq(x->nevents, y->nevents);
    cr_assert_eq(x->nmetrics, y->nmetrics);
    cr_assert_eq(x->has_names, y->has_names, "has_names of region %zu", i);
    for (size_t e = 0; x->has_names && e < x->nevents; e++) {
        cr_expect_str_eq(x->event_names[e], y->event_names[e]);
        cr_expect_str_eq(x->counter_names[e], y->counter_names[e]);
    }
    for (size_t m = 0; m < x->nmetrics; m++)
        cr_expect_str_eq(x->metric_names[m], y->metric_names[m]);
    size_t T = x->nthreads;
    same_i64(x->cpus, y->cpus, T, "cpus");
    same_i64(x->call_counts, y->call_counts, T, "call_counts");
    cr_expect(memcmp(x->times, y->times, T * 8) == 0);
    cr_expect(memcmp(x->events, y->events, x->nevents * T * 8) == 0);
    cr_expect(memcmp(x->metrics, y->metrics, x->nmetrics * T * 8) == 0);
}

Test(roundtrip, sl_h5_read_gives_the_input_back)
{
    sl_runset set;
    sl_diag d;
    sl_diag_init(&d);
    int rc = sl_h5_read(file, &set, &d);
    cr_assert_eq(rc, 0, "read failed: %s", d.kept ? d.lines[0] : "?");
    cr_assert_eq(set.nruns, 2u);
    for (size_t k = 0; k < 2; k++) {
        const sl_run *a = &runs[k], *b = &set.runs[k];
        cr_expect_eq(b->rank, a->rank, "runs in ascending rank");
        cr_expect_eq(b->mpi_rank, a->mpi_rank);
        cr_expect_eq(b->pid, a->pid);
        cr_expect_str_eq(b->hostname, "node\\xFF01");
        cr_expect_str_eq(b->executable, a->executable);
        cr_expect_str_eq(b->command_line, a->command_line);
        cr_expect_str_eq(b->likwid_status, a->likwid_status);
        cr_expect_str_eq(b->likwid_version, a->likwid_version);
        cr_assert_eq(b->nenv, a->nenv);
        for (size_t i = 0; i < a->nenv; i++) {
            cr_expect_str_eq(b->env[i].name, a->env[i].name);
            cr_expect_str_eq(b->env[i].value, a->env[i].value);
        }
        same_timing(&a->timing, &b->timing);
        char name[16];
        snprintf(name, sizeof name, "rank%" PRId64, a->rank);
        cr_expect_str_eq(b->group, name);
        cr_expect_str_eq(b->merged_from, "", "a written file was never merged");
        cr_expect_str_eq(b->merged_from_group, "");
        cr_expect_eq(b->likwid.source, a->likwid.source);
        cr_assert_eq(b->likwid.nregions, a->likwid.nregions);
        for (size_t i = 0; i < a->likwid.nregions; i++)
            same_region(&a->likwid.regions[i], &b->likwid.regions[i], i);
    }
    sl_runset_free(&set);
    sl_diag_free(&d);
}

/* /metadata holds rank 0's run metadata, scope-profiler's names and types;
 * rank<R>/regions is timing/regions itself. */
Test(roundtrip, metadata_and_regions_link)
{
    hid_t f = open_file();
    hid_t m = H5Gopen2(f, "metadata", H5P_DEFAULT);
    cr_assert_geq(m, 0, "/metadata missing");
    expect_str(m, "hostname", "node\\xFF01");
    expect_str(m, "timestamp", "2023-11-14T22:13:21.123456+00:00");
    cr_expect_eq(chk_i64_attr(m, "mpi_size"), 4);
    cr_expect_eq(chk_i64_attr(m, "omp_num_threads"), 3);
    cr_expect_eq(chk_i64_attr(m, "total_cores"), 12);
    cr_expect_eq(chk_i64_attr(m, "start_time_ns"), 1000000000);
    cr_expect_eq(chk_i64_attr(m, "finalize_time_ns"), 9000000000);
    expect_str(m, "working_directory", "/home/u/run");
    expect_str(m, "user", "u");
    expect_str(m, "SLURM_JOB_ID", "12345");
    cr_expect_eq(H5Aexists(m, "NOT_SLURM"), 0, "only SLURM_* variables");
    cr_expect_eq(H5Aexists(m, "scope_profiler_version"), 0);
    cr_expect_eq(H5Aexists(f, "scope_profiler_schema"), 0);
    H5Gclose(m);
    for (int i = 0; i < 2; i++) {
        char a[48], b[48];
        snprintf(a, sizeof a, "rank%" PRId64 "/regions", runs[i].rank);
        snprintf(b, sizeof b, "rank%" PRId64 "/timing/regions", runs[i].rank);
        H5O_info_t ia, ib;
        cr_assert_geq(H5Oget_info_by_name2(f, a, &ia, H5O_INFO_BASIC, H5P_DEFAULT), 0, "%s", a);
        cr_assert_geq(H5Oget_info_by_name2(f, b, &ib, H5O_INFO_BASIC, H5P_DEFAULT), 0, "%s", b);
        cr_expect_eq(ia.addr, ib.addr, "%s is not a hard link to %s", a, b);
        cr_expect_eq(ia.rc, 2u, "%s: two links to one group", b);
    }
    H5Fclose(f);

    sl_runset set;
    sl_diag d;
    sl_diag_init(&d);
    cr_assert_eq(sl_h5_read(file, &set, &d), 0, "%s", d.kept ? d.lines[0] : "?");
    const sl_file_meta *fm = &set.meta;
    cr_expect(fm->present);
    cr_expect_str_eq(fm->hostname, "node\\xFF01");
    cr_expect_str_eq(fm->timestamp, "2023-11-14T22:13:21.123456+00:00");
    cr_expect_eq(fm->total_cores, 12);
    cr_expect_eq(fm->run.mpi_size, 4);
    cr_expect_eq(fm->run.omp_num_threads, 3);
    cr_expect_eq(fm->run.start_time_ns, 1000000000);
    cr_expect_eq(fm->run.finalize_time_ns, 9000000000);
    cr_expect_str_eq(fm->run.working_directory, "/home/u/run");
    cr_expect_str_eq(fm->run.user, "u");
    cr_assert_eq(fm->run.nvars, 1u);
    cr_expect_str_eq(fm->run.vars[0].name, "SLURM_JOB_ID");
    cr_expect_str_eq(fm->run.vars[0].value, "12345");
    sl_runset_free(&set);
    sl_diag_free(&d);
}

Test(roundtrip, run_without_counters_has_no_likwid_group)
{
    sl_run r;
    cr_assert_eq(sl_run_init(&r), 0);
    char *path = NULL;
    cr_assert_geq(asprintf(&path, "%s/timing-only.h5", dir), 0);
    sl_diag d;
    sl_diag_init(&d);
    cr_assert_eq(sl_h5_write(path, &r, 1, NULL, &d), 0);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    cr_expect_gt(H5Lexists(f, "rank0/timing/regions", H5P_DEFAULT), 0);
    cr_expect_eq(H5Lexists(f, "rank0/likwid", H5P_DEFAULT), 0);
    H5Fclose(f);
    sl_runset set;
    cr_assert_eq(sl_h5_read(path, &set, &d), 0);
    cr_expect_eq(set.runs[0].likwid.source, SL_SOURCE_NONE);
    cr_expect_eq(set.runs[0].timing.nregions, 0u);
    sl_runset_free(&set);
    sl_diag_free(&d);
    sl_run_free(&r);
    free(path);
}
