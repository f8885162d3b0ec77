/* Test runs for the h5 suite (see fixture.h). Uses assert-free plain C so
 * the sample writer can link it without Criterion. */
#include "fixture.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const fixture_tags[] = {
    "solve-step", "io phase", "", ".", "..", "a/b", "a|b", "x%y", " lead and trail ",
    ("\xff\xfe" "abc"), "tab\there", "caf\xc3\xa9", "%g1", "%", ".hidden", "back\\slash",
};
const size_t fixture_tag_lens[] = {10, 8, 0, 1, 2, 3, 3, 3, 16, 5, 8, 5, 3, 1, 7, 10};
const size_t fixture_ntags = sizeof fixture_tags / sizeof fixture_tags[0];

static void die(const char *what)
{
    fprintf(stderr, "fixture: %s failed\n", what);
    exit(99);
}

static void fill_timing(sl_timing_region *t, size_t k)
{
    t->dropped_calls = (int64_t)k;
    t->open_at_close = (int64_t)k % 3;
    t->unmatched_stops = (int64_t)k % 2;
    t->nested_starts = (int64_t)k * 5;
    for (size_t i = 0; i < t->nthreads; i++) {
        t->threads[i] = 1000 + (int64_t)i;
        t->call_counts[i] = (int64_t)(i + k + 1);
        t->total_ns[i] = (int64_t)(i * 1000000007u + k);
        t->min_ns[i] = -(int64_t)i; /* negatives survive */
        t->max_ns[i] = INT64_MAX - (int64_t)i;
    }
    for (size_t c = 0; c < t->ncalls; c++) {
        t->call_threads[c] = 1000 + (int64_t)(c % (t->nthreads ? t->nthreads : 1));
        t->start_times[c] = (int64_t)(c * 100);
        t->end_times[c] = (int64_t)(c * 100 + 50);
    }
}

static void fill_region(sl_region *r, size_t k)
{
    for (size_t t = 0; t < r->nthreads; t++) {
        r->cpus[t] = (int64_t)(t * 2);
        r->times[t] = 0.5 + (double)t / 3.0 + (double)k;
        r->call_counts[t] = (int64_t)(t + 1);
    }
    for (size_t i = 0; i < r->nevents * r->nthreads; i++)
        r->events[i] = (double)i * 1.25 + (double)k;
    for (size_t i = 0; i < r->nmetrics * r->nthreads; i++)
        r->metrics[i] = (double)i / 7.0 - (double)k;
}

static sl_region *add(sl_run *run, const char *tag, size_t len, int64_t gid, const char *gname,
                      sl_source src, size_t t, size_t e, size_t m, int names)
{
    sl_region *r = sl_likwid_add(&run->likwid, tag, len, gid, gname, src, t, e, m, names);
    if (!r)
        die("sl_likwid_add");
    fill_region(r, run->likwid.nregions);
    return r;
}

static void set(char **slot, const char *s)
{
    if (sl_set_string(slot, s))
        die("sl_set_string");
}

void fixture_run(sl_run *run, int64_t rank)
{
    if (sl_run_init(run))
        die("sl_run_init");
    run->rank = rank;
    run->mpi_rank = rank;
    run->pid = 4242 + rank;
    set(&run->hostname, "node\xff" "01"); /* not UTF-8: written as node\xFF01 */
    set(&run->executable, "/usr/bin/app");
    set(&run->command_line, "app --size 10 \"quoted arg\"");
    set(&run->likwid_status, "full_api failed: collector killed by signal 11; used marker_file");
    set(&run->likwid_version, "5.5.1");
    set(&run->timing.clock, "CLOCK_MONOTONIC");
    run->timing.origin_unix_ns = 1700000000123456789LL;
    if (sl_run_add_env(run, "LIKWID_EVENTS", "MEM_DP") || sl_run_add_env(run, "LIKWID_THREADS", "0,1,2,3") ||
        sl_run_add_env(run, "LIKWID_FILEPATH", "/tmp/likwid_marker.txt") ||
        sl_run_add_env(run, "LIKWID_MODE", ""))
        die("sl_run_add_env");
    /* /metadata: start 1 s after the clock's zero (timestamp
     * 2023-11-14T22:13:21.123456+00:00) */
    run->meta.mpi_size = 4;
    run->meta.omp_num_threads = 3;
    run->meta.start_time_ns = 1000000000;
    run->meta.finalize_time_ns = 9000000000;
    set(&run->meta.working_directory, "/home/u/run");
    set(&run->meta.user, "u");
    if (sl_run_meta_add_var(&run->meta, "SLURM_JOB_ID", "12345") ||
        sl_run_meta_add_var(&run->meta, "NOT_SLURM", "left out"))
        die("sl_run_meta_add_var");

    for (size_t i = 0; i < fixture_ntags; i++) {
        sl_timing_region *t = sl_timing_add(&run->timing, fixture_tags[i], fixture_tag_lens[i],
                                            (i % 4) + 1, i % 3 ? 5 : 0);
        if (!t)
            die("sl_timing_add");
        fill_timing(t, i);
    }
    char *big = malloc(BIG_TAG_LEN);
    if (!big)
        die("malloc");
    for (size_t i = 0; i < BIG_TAG_LEN; i++)
        big[i] = (char)('a' + i % 26);
    sl_timing_region *t = sl_timing_add(&run->timing, big, BIG_TAG_LEN, 2, 1);
    if (!t)
        die("sl_timing_add");
    fill_timing(t, 99);

    run->likwid.source = SL_SOURCE_FULL_API;
    /* full_api, names, a repeated event with and without counter names */
    static const char *const ev[] = {"CAS_COUNT_RD", "CAS_COUNT_RD", "INSTR_RETIRED_ANY", "X", "X"};
    static const char *const ctr[] = {"MBOX0C0", "MBOX1C0", "FIXC0", "", ""};
    static const char *const met[] = {"Runtime (RDTSC) [s]", "Memory bandwidth [MBytes/s]"};
    for (int g = 0; g < 2; g++) {
        sl_region *r = add(run, "solve-step", 10, g, g ? "FLOPS_DP" : "MEM_DP", SL_SOURCE_FULL_API,
                           4, 5, 2, 1);
        for (size_t e = 0; e < 5; e++) {
            set(&r->event_names[e], ev[e]);
            set(&r->counter_names[e], ctr[e]);
        }
        for (size_t m = 0; m < 2; m++)
            set(&r->metric_names[m], met[m]);
    }
    /* every awkward tag once, in group 0, full_api, no events */
    for (size_t i = 1; i < fixture_ntags; i++)
        add(run, fixture_tags[i], fixture_tag_lens[i], 0, "MEM_DP", SL_SOURCE_FULL_API, 2, 0, 0, 1);
    /* a non-UTF-8 tag in two groups */
    add(run, "\xff\xfe" "abc", 5, 1, "FLOPS_DP", SL_SOURCE_FULL_API, 2, 0, 0, 1);
    /* marker_file: no names; marker_api: one thread */
    add(run, "from-file", 9, 0, "MEM_DP", SL_SOURCE_MARKER_FILE, 3, 4, 0, 0);
    sl_region *api = add(run, "snapshot", 8, 0, "MEM_DP", SL_SOURCE_MARKER_API, 1, 3, 0, 0);
    api->cpus[0] = 7;
    /* a tag that is a full 10 kB */
    add(run, big, BIG_TAG_LEN, 0, "MEM_DP", SL_SOURCE_MARKER_FILE, 1, 1, 0, 0);
    free(big);
}

void fixture_big(sl_run *run, size_t nregions, size_t t, size_t e)
{
    if (sl_run_init(run))
        die("sl_run_init");
    set(&run->timing.clock, "CLOCK_MONOTONIC");
    run->likwid.source = SL_SOURCE_FULL_API;
    char tag[64];
    for (size_t i = 0; i < nregions; i++) {
        snprintf(tag, sizeof tag, "region-%zu", i);
        sl_timing_region *tr = sl_timing_add(&run->timing, tag, strlen(tag), t, 0);
        if (!tr)
            die("sl_timing_add");
        fill_timing(tr, i);
        sl_region *r = add(run, tag, strlen(tag), 0, "MEM_DP", SL_SOURCE_FULL_API, t, e, 4, 1);
        for (size_t k = 0; k < e; k++) {
            char n[32];
            snprintf(n, sizeof n, "EVENT_%zu", k);
            set(&r->event_names[k], n);
            snprintf(n, sizeof n, "PMC%zu", k);
            set(&r->counter_names[k], n);
        }
        for (size_t m = 0; m < 4; m++)
            set(&r->metric_names[m], "metric");
    }
}

char *fixture_dir(void)
{
    char *d = strdup("/tmp/sl-h5-test-XXXXXX");
    if (!d || !mkdtemp(d))
        die("mkdtemp");
    return d;
}

void fixture_rmdir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fixture: cannot remove %s\n", dir);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *fixture_ls(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return strdup("(no dir)");
    char *names[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(names[i]) + 1;
    char *out = calloc(1, len);
    for (size_t i = 0; i < n; i++) {
        strcat(out, names[i]);
        if (i + 1 < n)
            strcat(out, "\n");
        free(names[i]);
    }
    return out;
}
