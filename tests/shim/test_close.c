/* The Close sequence against a fake LIKWID (fake_likwid.c): which counter
 * source is used, the exact likwid_status texts, what is (not) forwarded. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "diag.h"
#include "likwid_result.h"
#include "run.h"
#include "shim_test_util.h"
#include "wire.h"

void likwid_markerInit(void);
int likwid_markerStartRegion(const char *);
int likwid_markerStopRegion(const char *);
int likwid_markerResetRegion(const char *);
void likwid_markerGetRegion(const char *, int *, double *, double *, int *);
void likwid_markerNextGroup(void);
void likwid_markerClose(void);
void likwid_markerstartregion_(const char *, size_t);
void likwid_markerstopregion_(const char *, size_t);

extern int fake_inits, fake_starts, fake_stops, fake_gets, fake_resets, fake_closes;

static char *dir, output[600], markerfile[600];

#ifndef SAMPLES
#error SAMPLES must name the spec samples directory
#endif

static void setup(void)
{
    dir = tu_tempdir();
    cr_assert_not_null(dir);
    char tmpl[600];
    snprintf(tmpl, sizeof tmpl, "%s/out.h5", dir);
    snprintf(output, sizeof output, "%s/out.h5", dir);
    snprintf(markerfile, sizeof markerfile, "%s/likwid_1.txt", dir);
    char *w = tu_script(dir, "writer.sh", TU_COPY_WRITER);
    setenv("SCOPE_LIKWID_WRITER", w, 1);
    free(w);
    setenv("SCOPE_LIKWID_OUTPUT", tmpl, 1);
    setenv("SCOPE_LIKWID_QUIET", "1", 1);
    setenv("LIKWID_FILEPATH", markerfile, 1);
    setenv("LIKWID_MODE", "1", 1);
    setenv("LIKWID_EVENTS", "FLOPS_DP", 1);
    setenv("LIKWID_THREADS", "0,1", 1);
    setenv("FAKE_MARKER_SRC", SAMPLES "/v52_one_group.txt", 1);
    /* on one CPU, as likwid-perfctr -C pins the main thread: LIKWID 5.2
     * (the fake) keeps regions per CPU, and the snapshots need that */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
}

static void collector(const char *body)
{
    char *c = tu_script(dir, "collect.sh", body);
    setenv("SCOPE_LIKWID_COLLECTOR", c, 1);
    free(c);
}

/* Returns what LIKWID's Stop returned (0 counting, -EFAULT not counting). */
static int app(void)
{
    likwid_markerInit();
    int rc = 0;
    for (int i = 0; i < 4; i++) {
        likwid_markerStartRegion("a");
        rc |= likwid_markerStopRegion("a");
    }
    likwid_markerstartregion_("f   ", 4);
    likwid_markerstopregion_("f", 1);
    likwid_markerClose();
    return rc;
}

static sl_run result(void)
{
    size_t len;
    char *buf = tu_slurp_result(output, &len);
    cr_assert_not_null(buf, "no result file");
    sl_run run;
    sl_diag d;
    sl_diag_init(&d);
    sl_run_init(&run);
    cr_assert_eq(sl_wire_read_run(buf, len, "out", &run, &d), 0, "%s", d.kept ? d.lines[0] : "");
    sl_diag_free(&d);
    free(buf);
    return run;
}

Test(close, marker_file_when_collector_crashes, .init = setup)
{
    collector("echo boom >&2; kill -SEGV $$");
    cr_assert_eq(app(), 0);
    sl_run run = result();
    cr_assert_str_eq(run.likwid_status,
                     "full_api failed: collector killed by signal 11 (stderr: boom); used marker_file");
    cr_assert_eq(run.likwid.source, SL_SOURCE_MARKER_FILE);
    cr_assert_eq(run.likwid.nregions, 3);
    cr_assert_eq(fake_closes, 1);
    cr_assert_eq(fake_gets, 2, "one snapshot per tag this thread started");
    /* every LIKWID_* variable is kept */
    int seen = 0;
    for (size_t i = 0; i < run.nenv; i++)
        seen += strncmp(run.env[i].name, "LIKWID_", 7) == 0;
    cr_assert_eq(seen, 4);
    sl_run_free(&run);
}

Test(close, full_api_answer_used, .init = setup)
{
    sl_likwid lw;
    sl_likwid_init(&lw);
    sl_region *r = sl_likwid_add(&lw, "a", 1, 0, "FLOPS_DP", SL_SOURCE_FULL_API, 2, 1, 0, 1);
    cr_assert_not_null(r);
    lw.source = SL_SOURCE_FULL_API;
    char answer[700];
    snprintf(answer, sizeof answer, "%s/answer", dir);
    int fd = open(answer, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert_eq(sl_wire_write_likwid(fd, &lw), 0);
    close(fd);
    sl_likwid_free(&lw);
    char body[1600];
    /* The collector is started with our library out of LD_PRELOAD and
     * SCOPE_LIKWID_DISABLE=1, and gets the marker file as its argument. */
    snprintf(body, sizeof body,
             "[ \"$SCOPE_LIKWID_DISABLE\" = 1 ] || exit 7\n[ \"$1\" = '%s' ] || exit 8\ncat '%s'",
             markerfile, answer);
    collector(body);
    app();
    sl_run run = result();
    cr_assert_str_eq(run.likwid_status, "used full_api");
    cr_assert_eq(run.likwid.source, SL_SOURCE_FULL_API);
    cr_assert_eq(run.likwid.nregions, 1);
    cr_assert_str_eq(run.likwid.regions[0].group_name, "FLOPS_DP");
    sl_run_free(&run);
}

Test(close, garbage_from_collector, .init = setup)
{
    collector("echo 'this is not the wire format'");
    app();
    sl_run run = result();
    cr_assert(strncmp(run.likwid_status, "full_api failed: garbage output: ", 33) == 0, "%s",
              run.likwid_status);
    cr_assert_not_null(strstr(run.likwid_status, "; used marker_file"), "%s", run.likwid_status);
    sl_run_free(&run);
}

Test(close, collector_timeout, .init = setup)
{
    setenv("SCOPE_LIKWID_TIMEOUT", "0.3", 1);
    collector("exec sleep 20");
    app();
    sl_run run = result();
    cr_assert_str_eq(run.likwid_status,
                     "full_api failed: collector timed out after 0.3 s; used marker_file");
    sl_run_free(&run);
}

Test(close, collector_exit_status, .init = setup)
{
    collector("echo 'perfmon_init failed' >&2; exit 1");
    app();
    sl_run run = result();
    cr_assert_str_eq(run.likwid_status, "full_api failed: collector exited with status 1: "
                                        "perfmon_init failed; used marker_file");
    sl_run_free(&run);
}

Test(close, no_marker_file_uses_snapshots, .init = setup)
{
    unsetenv("FAKE_MARKER_SRC");
    collector("exit 0");
    app();
    sl_run run = result();
    char want[900];
    snprintf(want, sizeof want,
             "LIKWID wrote no marker file (%s: No such file or directory); used marker_api",
             markerfile);
    cr_assert_str_eq(run.likwid_status, want);
    cr_assert_eq(run.likwid.source, SL_SOURCE_MARKER_API);
    cr_assert_eq(run.likwid.nregions, 2);
    const sl_region *a = &run.likwid.regions[0];
    cr_assert_str_eq(a->tag, "a");
    cr_assert_eq(a->nthreads, 1);
    cr_assert_eq(a->call_counts[0], 4);
    cr_assert_float_eq(a->times[0], 1.0, 1e-12);
    cr_assert_eq(a->nevents, 3);
    cr_assert_float_eq(a->events[2], 1200.0, 1e-9);
    cr_assert_geq(a->cpus[0], 0);
    sl_run_free(&run);
}

Test(close, sources_marker_api_only, .init = setup)
{
    setenv("SCOPE_LIKWID_SOURCES", "marker_api", 1);
    collector("exit 99");
    app();
    sl_run run = result();
    cr_assert_str_eq(run.likwid_status, "used marker_api");
    sl_run_free(&run);
}

Test(close, no_snapshots_on_a_thread_of_several_cpus, .init = setup)
{
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < 2; c++)
        CPU_SET(c, &all);
    if (sched_setaffinity(0, sizeof all, &all) != 0 || CPU_COUNT(&all) < 2)
        cr_skip_test("needs two CPUs");
    setenv("SCOPE_LIKWID_SOURCES", "marker_api", 1);
    collector("exit 99");
    app();
    sl_run run = result();
    cr_assert_eq(fake_gets, 0, "a GetRegion on a thread LIKWID 5.2 does not know the CPU of");
    cr_assert_str_eq(run.likwid_status, "marker_api: not taken: the closing thread is not bound "
                                        "to one CPU, and LIKWID 5.2 to 5.4 keep regions per CPU "
                                        "(a GetRegion could add an empty one, which changes what "
                                        "their Close prints and writes); no counter data");
    cr_assert_eq(run.likwid.source, SL_SOURCE_NONE);
    sl_run_free(&run);
}

Test(close, sources_without_fallback, .init = setup)
{
    setenv("SCOPE_LIKWID_SOURCES", "full_api", 1);
    collector("exit 1");
    app();
    sl_run run = result();
    cr_assert_str_eq(run.likwid_status, "full_api failed: collector exited with status 1; "
                                        "no counter data");
    cr_assert_eq(run.likwid.source, SL_SOURCE_NONE);
    cr_assert_eq(fake_gets, 0, "no snapshots when marker_api is not wanted");
    sl_run_free(&run);
}

Test(close, stale_marker_file, .init = setup)
{
    unsetenv("FAKE_MARKER_SRC");
    setenv("SCOPE_LIKWID_SOURCES", "full_api,marker_file", 1);
    close(open(markerfile, O_WRONLY | O_CREAT, 0644));
    struct utimbuf old = {.actime = 1000000, .modtime = 1000000};
    cr_assert_eq(utime(markerfile, &old), 0);
    app();
    sl_run run = result();
    char want[900];
    snprintf(want, sizeof want,
             "marker file %s is unchanged since this run's Init: LIKWID did not write it; "
             "no counter data",
             markerfile);
    cr_assert_str_eq(run.likwid_status, want);
    sl_run_free(&run);
}

Test(close, not_counting, .init = setup)
{
    unsetenv("LIKWID_FILEPATH");
    collector("exit 0");
    cr_assert_eq(app(), -EFAULT, "LIKWID's answer is passed on");
    sl_run run = result();
    cr_assert_str_eq(run.likwid_status, "LIKWID not counting (LIKWID_FILEPATH not set: not run "
                                        "under likwid-perfctr -m); timing only");
    cr_assert_eq(fake_gets, 0);
    cr_assert_eq(fake_closes, 1);
    cr_assert_eq(run.timing.nregions, 2);
    sl_run_free(&run);
}

Test(close, partly_counting, .init = setup)
{
    unsetenv("LIKWID_EVENTS");
    app();
    sl_run run = result();
    cr_assert_str_eq(run.likwid_status, "LIKWID not counting (LIKWID_EVENTS not set); timing only");
    sl_run_free(&run);
}

Test(close, hazards_not_forwarded, .init = setup)
{
    collector("exit 1");
    likwid_markerInit();
    cr_assert_eq(fake_inits, 1);
    cr_assert_eq(likwid_markerStopRegion("unknown"), -EFAULT);
    cr_assert_eq(likwid_markerResetRegion("unknown"), -EFAULT);
    int nr = 4, count = 3;
    double ev[4] = {1, 2, 3, 4}, t = 1;
    likwid_markerGetRegion("unknown", &nr, ev, &t, &count);
    cr_assert_eq(fake_stops + fake_resets + fake_gets, 0, "nothing reached LIKWID");
    /* LIKWID counts: every event the caller has room for is a defined 0. */
    cr_assert_eq(nr, 4);
    cr_assert_eq(count, 0);
    cr_assert(t == 0 && ev[0] == 0 && ev[1] == 0 && ev[2] == 0 && ev[3] == 0);
    likwid_markerStartRegion("k");
    likwid_markerStopRegion("k");
    cr_assert_eq(likwid_markerStopRegion("k"), -EFAULT);
    cr_assert_eq(fake_stops, 1, "the second stop was answered by the shim");
    likwid_markerGetRegion("k", &nr, ev, &t, &count);
    cr_assert_eq(fake_gets, 1);
    cr_assert_eq(count, 1);
    likwid_markerClose();
    likwid_markerClose();
    cr_assert_eq(fake_closes, 1, "Close reaches LIKWID once");
}

/* A later Init..Close cycle begins, as LIKWID's own Init does, in the first
 * group: NextGroup calls of an earlier cycle do not carry over. Cycle 1
 * switches once (of two groups); cycle 2 times "b" in group 0, and its
 * snapshot (marker_api) is taken and labelled in group 0. */
Test(close, later_cycle_starts_in_group_0, .init = setup)
{
    setenv("LIKWID_EVENTS", "FLOPS_DP|MEM", 1);
    setenv("SCOPE_LIKWID_SOURCES", "marker_api", 1);
    unsetenv("FAKE_MARKER_SRC");
    likwid_markerInit();
    likwid_markerStartRegion("a");
    likwid_markerStopRegion("a");
    likwid_markerNextGroup();
    likwid_markerStartRegion("a");
    likwid_markerStopRegion("a");
    likwid_markerClose();
    likwid_markerInit();
    likwid_markerStartRegion("b");
    likwid_markerStopRegion("b");
    likwid_markerClose();
    snprintf(output, sizeof output, "%s/out.cycle2.h5", dir);
    sl_run run = result();
    cr_assert_eq(run.likwid.source, SL_SOURCE_MARKER_API, "%s", run.likwid_status);
    cr_assert_eq(run.likwid.nregions, 1, "%s", run.likwid_status);
    cr_assert_str_eq(run.likwid.regions[0].tag, "b");
    cr_assert_eq(run.likwid.regions[0].group_id, 0, "cycle 2's region in group %lld",
                 (long long)run.likwid.regions[0].group_id);
    sl_run_free(&run);
}
