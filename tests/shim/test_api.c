/* The marker API end to end inside one process, without LIKWID (its symbols
 * are absent: "not linked" mode), with a fake writer script that copies the
 * rescue file beside the output path (TU_COPY_WRITER). Each test runs in
 * its own process. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "hot_path.h"
#include "say.h"
#include "run.h"
#include "shim_test_util.h"
#include "wire.h"

void likwid_markerInit(void);
void likwid_markerThreadInit(void);
int likwid_markerRegisterRegion(const char *);
int likwid_markerStartRegion(const char *);
int likwid_markerStopRegion(const char *);
int likwid_markerResetRegion(const char *);
void likwid_markerGetRegion(const char *, int *, double *, double *, int *);
void likwid_markerNextGroup(void);
void likwid_markerClose(void);
void likwid_markerstartregion_(const char *, size_t);
void likwid_markerstopregion_(const char *, size_t);
void likwid_markergetregion_(const char *, int *, double *, double *, int *, size_t);
void likwid_markerclose_(void);

static char *dir, output[600], rescue[620], calls[600], errfile[600];

static void setup_with(const char *writer_body)
{
    dir = tu_tempdir();
    cr_assert_not_null(dir);
    snprintf(output, sizeof output, "%s/out-%%p.h5", dir);
    snprintf(calls, sizeof calls, "%s/writer-calls", dir);
    char body[2048];
    snprintf(body, sizeof body, "echo \"$@\" >>'%s'\n%s", calls, writer_body);
    char *w = tu_script(dir, "writer.sh", body);
    setenv("SCOPE_LIKWID_WRITER", w, 1);
    setenv("SCOPE_LIKWID_OUTPUT", output, 1);
    setenv("SCOPE_LIKWID_TIMEOUT", "5", 1);
    unsetenv("LIKWID_FILEPATH");
    free(w);
    snprintf(output, sizeof output, "%s/out-%d.h5", dir, (int)getpid());
    snprintf(rescue, sizeof rescue, "%s.rescue", output);
    /* Our stderr goes to a file the test can read. */
    snprintf(errfile, sizeof errfile, "%s/stderr", dir);
    int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    close(fd);
    sl_log_take_stderr();       /* the shim writes only to the stderr it took */
}

static void setup(void)
{
    setup_with(TU_COPY_WRITER);
}

static void setup_failing_writer(void)
{
    setup_with("echo 'HDF5 is broken' >&2; exit 1");
}

static sl_run read_run(const char *path)
{
    size_t len;
    char *buf = tu_slurp_result(path, &len);
    cr_assert_not_null(buf, "%s missing", path);
    sl_run run;
    sl_diag d;
    sl_diag_init(&d);
    cr_assert_eq(sl_run_init(&run), 0);
    cr_assert_eq(sl_wire_read_run(buf, len, path, &run, &d), 0, "%s",
                 d.kept ? d.lines[0] : "?");
    sl_diag_free(&d);
    free(buf);
    return run;
}

static const sl_timing_region *find(const sl_run *r, const char *tag)
{
    for (size_t i = 0; i < r->timing.nregions; i++)
        if (strcmp(r->timing.regions[i].tag, tag) == 0)
            return &r->timing.regions[i];
    return NULL;
}

static int count_lines(const char *path)
{
    char *s = tu_slurp(path, NULL);
    int n = 0;
    for (char *p = s; p && *p; p++)
        n += *p == '\n';
    free(s);
    return n;
}

Test(api, init_regions_close, .init = setup)
{
    likwid_markerInit();
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(likwid_markerStartRegion("a"), 0);
        cr_assert_eq(likwid_markerStopRegion("a"), 0);
    }
    likwid_markerstartregion_("fortran tag     ", 16);
    cr_assert_eq(likwid_markerStopRegion("fortran tag"), 0, "the Fortran tag was trimmed");
    char longtag[600];
    memset(longtag, 'L', sizeof longtag);
    likwid_markerstartregion_(longtag, sizeof longtag);
    likwid_markerstopregion_(longtag, sizeof longtag);
    likwid_markerClose();
    likwid_markerClose();
    likwid_markerclose_();
    fflush(NULL);
    cr_assert_eq(count_lines(calls), 1, "the writer ran once");
    cr_assert_not(tu_exists(rescue), "the rescue file is deleted after success");
    sl_run run = read_run(output);
    cr_assert_eq(run.pid, getpid());
    cr_assert_eq(run.rank, 0);
    cr_assert_eq(run.mpi_rank, -1);
    cr_assert_str_eq(run.likwid_status,
                     "LIKWID not counting (the application is not linked with LIKWID); timing only");
    cr_assert_str_eq(run.timing.clock, "CLOCK_MONOTONIC");
    cr_assert_gt(run.timing.origin_unix_ns, 1000000000LL * 1000000000LL);
    cr_assert_eq(run.likwid.source, SL_SOURCE_NONE);
    cr_assert_eq(run.timing.nregions, 3);
    cr_assert_eq(find(&run, "a")->call_counts[0], 3);
    cr_assert_eq(find(&run, "a")->ncalls, 3);
    cr_assert_eq(find(&run, "fortran tag")->call_counts[0], 1);
    cr_assert_eq(run.timing.regions[2].tag_len, sizeof longtag);
    cr_assert_eq(run.timing.regions[2].call_counts[0], 1);
    sl_run_free(&run);
    char *err = tu_slurp(errfile, NULL);
    char want[700];
    snprintf(want, sizeof want, "scope-likwid: wrote %s\n", output);
    cr_assert_str_eq(err, want);
    free(err);
}

/* Without LIKWID, GetRegion of a region the thread did run: every output
 * set — no events reported (the caller's buffer untouched), the shim's own
 * count and time of the calling thread. */
Test(api, get_without_likwid_defined, .init = setup)
{
    setenv("SCOPE_LIKWID_QUIET", "1", 1);
    likwid_markerInit();
    struct timespec nap = {0, 2000000};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(likwid_markerStartRegion("ran"), 0);
        nanosleep(&nap, NULL);
        cr_assert_eq(likwid_markerStopRegion("ran"), 0);
    }
    int nr = 3, count = 99;
    double ev[3] = {7, 7, 7}, time = 9;
    likwid_markerGetRegion("ran", &nr, ev, &time, &count);
    cr_assert_eq(nr, 0);
    cr_assert_eq(count, 2, "the shim's own count of this thread's calls");
    cr_assert(time >= 0.004 && time < 5, "the shim's own time of the two 2 ms calls: %g s", time);
    cr_assert(ev[0] == 7 && ev[1] == 7 && ev[2] == 7, "the buffer is not half-written");
    nr = -5;
    likwid_markerGetRegion("ran", &nr, NULL, &time, &count);
    cr_assert_eq(nr, 0, "a negative capacity is answered with 0 events");
    likwid_markerClose();
}

Test(api, hazards_answered, .init = setup)
{
    setenv("SCOPE_LIKWID_QUIET", "1", 1);
    likwid_markerInit();
    cr_assert_eq(likwid_markerStopRegion("never"), -EFAULT);
    cr_assert_eq(likwid_markerResetRegion("never"), -EFAULT);
    int nr = 10, count = 99;
    double ev[10], time = 9;
    likwid_markerGetRegion("never", &nr, ev, &time, &count);
    cr_assert_eq(nr, 0);
    cr_assert_eq(count, 0);
    cr_assert_eq(time, 0);
    nr = 10;
    count = 5;
    likwid_markergetregion_("never  ", &nr, ev, &time, &count, 7);
    cr_assert_eq(nr, 0);
    likwid_markerGetRegion("never", NULL, NULL, NULL, NULL);
    cr_assert_eq(likwid_markerStartRegion(NULL), -EFAULT);
    cr_assert_eq(likwid_markerStopRegion(NULL), -EFAULT);
    /* nesting and double stop */
    cr_assert_eq(likwid_markerStartRegion("n"), 0);
    cr_assert_eq(likwid_markerStartRegion("n"), 0);
    cr_assert_eq(likwid_markerStopRegion("n"), 0);
    cr_assert_eq(likwid_markerStopRegion("n"), -EFAULT);
    cr_assert_eq(likwid_markerResetRegion("n"), 0, "a stopped region may be reset");
    cr_assert_eq(likwid_markerStartRegion("open"), 0);
    cr_assert_eq(likwid_markerResetRegion("open"), -EFAULT, "an open one may not");
    cr_assert_eq(likwid_markerRegisterRegion("reg"), 0);
    likwid_markerNextGroup();
    likwid_markerThreadInit();
    likwid_markerClose();
    /* after Close, the shim answers */
    cr_assert_eq(likwid_markerStartRegion("late"), -EFAULT);
    cr_assert_eq(likwid_markerStopRegion("late"), -EFAULT);
    sl_run run = read_run(output);
    cr_assert_eq(find(&run, "never")->unmatched_stops, 1);
    cr_assert_eq(find(&run, "n")->nested_starts, 1);
    cr_assert_eq(find(&run, "n")->unmatched_stops, 1);
    cr_assert_eq(find(&run, "n")->call_counts[0], 1);
    cr_assert_eq(find(&run, "open")->open_at_close, 1);
    cr_assert_null(find(&run, "reg"));
    cr_assert_null(find(&run, "late"));
    sl_run_free(&run);
    fflush(NULL);
    char *err = tu_slurp(errfile, NULL);
    cr_assert_str_eq(err, "", "quiet: no lines");
    free(err);
}

Test(api, writer_fails_rescue_kept, .init = setup_failing_writer)
{
    likwid_markerInit();
    likwid_markerStartRegion("r");
    likwid_markerStopRegion("r");
    likwid_markerClose();
    cr_assert(tu_exists(rescue));
    cr_assert_not(tu_exists(output));
    sl_run run = read_run(rescue);
    cr_assert_eq(find(&run, "r")->call_counts[0], 1);
    sl_run_free(&run);
    char *err = tu_slurp(errfile, NULL), want[4096];
    snprintf(want, sizeof want,
             "scope-likwid: could not write %s (writer exited with status 1: HDF5 is broken); "
             "timing data saved in %s: convert it with 'scope-likwid convert %s -o %s'\n",
             output, rescue, rescue, output);
    cr_assert_str_eq(err, want);
    free(err);
}

/* A writer's answer counts only for a result it proves it wrote for this
 * process (shim/proof.c): an answer naming some other file, one without a
 * proof, or one whose proof is of another key, leaves the rescue file and
 * the journal, and the line says why. */
static void setup_naming_hostname(void)
{
    setup_with("echo /etc/hostname");
}

static void setup_unproved(void)
{
    setup_with("{ " TU_COPY_WRITER_KEEP "; } | grep -v '^proof '");
}

static void setup_forged(void)
{
    setup_with("{ " TU_COPY_WRITER_KEEP "; } | sed 's/^proof .*/proof 0123456789abcdef/'");
}

static void fake_answer_refused(const char *why)
{
    likwid_markerInit();
    likwid_markerStartRegion("r");
    likwid_markerStopRegion("r");
    likwid_markerClose();
    cr_assert(tu_exists(rescue), "the rescue file was removed on a fake answer");
    sl_run run = read_run(rescue);
    cr_assert_eq(find(&run, "r")->call_counts[0], 1);
    sl_run_free(&run);
    char *err = tu_slurp(errfile, NULL);
    cr_assert_not_null(strstr(err, "which is not a result it wrote for this process: "), "%s", err);
    cr_assert_not_null(strstr(err, why), "%s", err);
    cr_assert_not_null(strstr(err, "timing data saved in "), "%s", err);
    cr_assert_null(strstr(err, "scope-likwid: wrote "), "%s", err);
    free(err);
}

Test(api, writer_naming_another_file, .init = setup_naming_hostname)
{
    fake_answer_refused("/etc/hostname");
}

Test(api, writer_without_proof, .init = setup_unproved)
{
    fake_answer_refused("the writer gave no proof of it");
}

Test(api, writer_forged_proof, .init = setup_forged)
{
    fake_answer_refused("the writer's proof does not match it");
}

Test(api, writer_missing, .init = setup)
{
    char missing[700];
    snprintf(missing, sizeof missing, "%s/no-such-writer", dir);
    setenv("SCOPE_LIKWID_WRITER", missing, 1);
    likwid_markerInit();
    likwid_markerClose();
    cr_assert(tu_exists(rescue));
    char *err = tu_slurp(errfile, NULL);
    cr_assert_not_null(strstr(err, "(writer not found: "), "%s", err);
    cr_assert_not_null(strstr(err, missing), "%s", err);
    free(err);
}

Test(api, rescue_exists_goes_to_tmpdir, .init = setup_failing_writer)
{
    close(open(rescue, O_CREAT | O_WRONLY, 0644));     /* taken */
    setenv("TMPDIR", dir, 1);
    likwid_markerInit();
    likwid_markerClose();
    char *err = tu_slurp(errfile, NULL);
    char want[4096], host[256] = "";
    gethostname(host, sizeof host - 1);
    /* the line says where the rescue file is, on which host and why */
    snprintf(want, sizeof want,
             "scope-likwid: could not write %s (writer exited with status 1: HDF5 is broken; "
             "not beside it either: %s: File exists, so on host %s only); timing data saved in "
             "%s/out-%d.h5.%d.0.rescue: convert it with ", output, rescue, host, dir,
             (int)getpid(), (int)getpid());
    cr_assert_not_null(strstr(err, want), "%s", err);
    free(err);
}

static void child_exits(int close_first, int init)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        if (init)
            likwid_markerInit();
        likwid_markerStartRegion("inside");
        if (close_first)
            likwid_markerClose();
        exit(0);    /* the test program may exit; the shim never does */
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    snprintf(output, sizeof output, "%s/out-%d.h5", dir, (int)pid);
}

Test(api, exit_without_close, .init = setup)
{
    child_exits(0, 1);
    sl_run run = read_run(output);
    cr_assert_str_eq(run.likwid_status,
                     "application exited without likwid_markerClose; no counter data");
    cr_assert_eq(find(&run, "inside")->open_at_close, 1);
    sl_run_free(&run);
}

Test(api, never_initialised_writes_nothing, .init = setup)
{
    child_exits(1, 0);
    cr_assert_not(tu_exists(output));
    cr_assert_not(tu_exists(calls), "the writer never ran");
}

Test(api, disabled_writes_nothing, .init = setup)
{
    setenv("SCOPE_LIKWID_DISABLE", "1", 1);
    child_exits(1, 1);
    cr_assert_not(tu_exists(output));
    cr_assert_not(tu_exists(calls));
}

Test(api, forked_child_is_pass_through, .init = setup)
{
    likwid_markerInit();
    likwid_markerStartRegion("parent");
    pid_t pid = fork();
    if (pid == 0) {
        likwid_markerStopRegion("parent");
        likwid_markerClose();
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    cr_assert_not(tu_exists(calls), "the child wrote nothing");
    likwid_markerStopRegion("parent");
    likwid_markerClose();
    cr_assert_eq(count_lines(calls), 1);
    sl_run run = read_run(output);
    cr_assert_eq(find(&run, "parent")->call_counts[0], 1);
    sl_run_free(&run);
}

Test(api, mpi_rank_and_template, .init = setup)
{
    char tmpl[700];
    snprintf(tmpl, sizeof tmpl, "%s/res-r%%r.h5", dir);
    setenv("SCOPE_LIKWID_OUTPUT", tmpl, 1);
    setenv("OMPI_COMM_WORLD_RANK", "5", 1);
    likwid_markerInit();
    likwid_markerClose();
    snprintf(output, sizeof output, "%s/res-r5.h5", dir);
    sl_run run = read_run(output);
    cr_assert_eq(run.rank, 5);
    cr_assert_eq(run.mpi_rank, 5);
    sl_run_free(&run);
}

/* ---- the journal: what a killed process would leave ---- */

#include "journal.h"

static sl_run read_journal(const char *path, sl_jrn_info *info)
{
    sl_run run;
    sl_diag d;
    sl_diag_init(&d);
    cr_assert_eq(sl_run_init(&run), 0);
    sl_jrn_clock clk = {0};
    cr_assert_eq(sl_journal_read(path, &clk, &run, info, &d), 0, "%s", d.kept ? d.lines[0] : "?");
    sl_diag_free(&d);
    return run;
}

Test(api, journal_holds_what_close_collects, .init = setup)
{
    setenv("SCOPE_LIKWID_MAX_CALLS", "2", 1);   /* some kept, some dropped */
    /* ns on the hot path: with the TSC, Close and the reader would each
     * convert ticks along their own (TSC, clock) line, equal only to within
     * the pairs' reading error. */
    setenv("SCOPE_LIKWID_TSC", "0", 1);
    likwid_markerInit();
    for (int i = 0; i < 5; i++) {
        likwid_markerStartRegion("a");
        likwid_markerStopRegion("a");
    }
    likwid_markerStartRegion("open");
    likwid_markerStopRegion("never");
    char jpath[700];
    snprintf(jpath, sizeof jpath, "%s.journal", output);
    cr_assert(tu_exists(jpath), "no journal next to the output");
    sl_jrn_info info;
    sl_run j = read_journal(jpath, &info);
    cr_assert_eq(info.pid, getpid());
    cr_assert_eq(info.state, SL_JRN_RUNNING);
    cr_assert_eq(info.open_regions, 1);
    cr_assert(sl_jrn_writer_alive(&info), "this process counts as alive");
    /* Still alive after its address space changed (a start-time field
     * read one off would have been vsize). */
    void *big = mmap(NULL, (size_t)1 << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(big, MAP_FAILED);
    cr_assert(sl_jrn_writer_alive(&info), "alive after an mmap");
    munmap(big, (size_t)1 << 30);
    sl_jrn_info other = info;
    other.start_ticks += 1;
    cr_assert_not(sl_jrn_writer_alive(&other), "another start time is another process");
    cr_assert_str_eq(info.output, output);
    likwid_markerStopRegion("open");
    likwid_markerClose();
    cr_assert_not(tu_exists(jpath), "Close removes the journal");
    sl_run c = read_run(output);
    /* The same figures as Close's, but for "open", stopped after the read. */
    const sl_timing_region *ja = find(&j, "a"), *ca = find(&c, "a");
    cr_assert_not_null(ja);
    cr_assert_eq(ja->call_counts[0], 5);
    cr_assert_eq(ja->ncalls, 2);
    cr_assert_eq(ja->dropped_calls, 3);
    cr_assert_eq(ja->total_ns[0], ca->total_ns[0]);
    cr_assert_eq(ja->min_ns[0], ca->min_ns[0]);
    cr_assert_eq(ja->max_ns[0], ca->max_ns[0]);
    cr_assert_eq(ja->start_times[1], ca->start_times[1]);
    cr_assert_eq(ja->threads[0], ca->threads[0]);
    cr_assert_eq(find(&j, "open")->open_at_close, 1);
    cr_assert_eq(find(&j, "never")->unmatched_stops, 1);
    cr_assert_eq(j.pid, c.pid);
    cr_assert_str_eq(j.executable, c.executable);
    sl_run_free(&j);
    sl_run_free(&c);
}

/* SCOPE_LIKWID_TSC as every boolean variable: each documented word for off
 * gives the hot path clock_gettime (the journal's header says so: ns, not
 * ticks); a value not understood is one warning and the default (the TSC
 * where it is exact). The clock the run took: sl_g.tsc, the hot path's own
 * and the journal header's. */
static int clock_of_run(const char *value, char **err)
{
    if (value)
        setenv("SCOPE_LIKWID_TSC", value, 1);
    likwid_markerInit();
    likwid_markerStartRegion("a");
    likwid_markerStopRegion("a");
    char jpath[700];
    snprintf(jpath, sizeof jpath, "%s.journal", output);
    int fd = open(jpath, O_RDONLY);
    cr_assert_geq(fd, 0, "no journal %s", jpath);
    int64_t in_journal = -1;
    cr_assert_eq(pread(fd, &in_journal, sizeof in_journal, offsetof(sl_jrn_header, tsc)),
                 (ssize_t)sizeof in_journal);
    close(fd);
    cr_assert_eq(sl_rt_clock_tsc(), sl_g.tsc);
    cr_assert_eq(in_journal, sl_g.tsc, "the journal says %lld, the run %d",
                 (long long)in_journal, sl_g.tsc);
    likwid_markerClose();
    *err = tu_slurp(errfile, NULL);
    cr_assert_not_null(*err);
    return sl_g.tsc;
}

static void tsc_off(const char *value)
{
    char *err;
    cr_assert_eq(clock_of_run(value, &err), 0, "SCOPE_LIKWID_TSC=%s still reads the TSC", value);
    cr_assert_null(strstr(err, "SCOPE_LIKWID_TSC"), "%s", err);
    free(err);
}

Test(api, tsc_0_off, .init = setup) { tsc_off("0"); }
Test(api, tsc_no_off, .init = setup) { tsc_off("no"); }
Test(api, tsc_false_off, .init = setup) { tsc_off("FALSE"); }
Test(api, tsc_off_off, .init = setup) { tsc_off("off"); }

/* The default, and a bad value keeps it with one warning. On a CPU without
 * an exact TSC the default is clock_gettime too: the warning is still
 * checked, the clock is what the unset variable gives in another process. */
Test(api, tsc_bogus_warns_once_keeps_default, .init = setup)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        char *e;
        snprintf(output, sizeof output, "%s/out-%d.h5", dir, (int)getpid());
        _exit(clock_of_run(NULL, &e) == 1 ? 10 : 11);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) >= 10, "the default run failed: %#x", st);
    int def = WEXITSTATUS(st) == 10;
    char *err;
    cr_assert_eq(clock_of_run("bogus", &err), def, "SCOPE_LIKWID_TSC=bogus: not the default");
    const char *want = "scope-likwid: SCOPE_LIKWID_TSC='bogus' not understood: expected 1/0, "
                       "yes/no, true/false or on/off; using 1\n";
    const char *at = strstr(err, want);
    cr_assert_not_null(at, "no warning: %s", err);
    cr_assert_null(strstr(at + strlen(want), "SCOPE_LIKWID_TSC"), "more than one line: %s", err);
    free(err);
}


Test(api, journal_off, .init = setup)
{
    setenv("SCOPE_LIKWID_JOURNAL", "0", 1);
    likwid_markerInit();
    likwid_markerStartRegion("a");
    likwid_markerStopRegion("a");
    char jpath[700];
    snprintf(jpath, sizeof jpath, "%s.journal", output);
    cr_assert_not(tu_exists(jpath));
    likwid_markerClose();
    sl_run c = read_run(output);
    cr_assert_eq(find(&c, "a")->call_counts[0], 1);
    sl_run_free(&c);
}

Test(api, journal_not_a_journal_is_refused, .init = setup)
{
    char path[700];
    snprintf(path, sizeof path, "%s/x.journal", dir);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    char junk[20000];
    memset(junk, 'j', sizeof junk);
    cr_assert_eq(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
    close(fd);
    sl_run run;
    sl_run_init(&run);
    sl_diag d;
    sl_diag_init(&d);
    sl_jrn_info info;
    cr_assert_eq(sl_journal_read(path, NULL, &run, &info, &d), -EINVAL);
    cr_assert(d.kept && strstr(d.lines[0], "not a scope-likwid journal"), "%s",
              d.kept ? d.lines[0] : "");
    sl_diag_free(&d);
    sl_run_free(&run);
}

/* Not counting (no LIKWID_FILEPATH): cycles 2 and 3 are one batch, written
 * by cycle 3's Close, which comes 1 s or more after the batch began. */
Test(api, later_cycles_one_batch, .init = setup)
{
    likwid_markerInit();
    likwid_markerStartRegion("one");
    likwid_markerStopRegion("one");
    likwid_markerClose();
    likwid_markerInit();
    cr_assert_eq(likwid_markerStartRegion("two"), 0);
    cr_assert_eq(likwid_markerStopRegion("two"), 0);
    likwid_markerClose();
    char second[700];
    snprintf(second, sizeof second, "%.*s.cycle2.h5", (int)strlen(output) - 3, output);
    cr_assert_neq(access(second, F_OK), 0, "cycle 2 written at its Close: %s", second);
    struct timespec wait = {1, 100000000};
    nanosleep(&wait, NULL);
    likwid_markerInit();
    cr_assert_eq(likwid_markerStartRegion("three"), 0);
    cr_assert_eq(likwid_markerStopRegion("three"), 0);
    likwid_markerClose();
    sl_run a = read_run(output);
    sl_run b = read_run(second);
    cr_assert_eq(a.timing.nregions, 1);
    cr_assert_not_null(find(&a, "one"));
    cr_assert_eq(b.timing.nregions, 2, "the batch starts from zero: %zu regions",
                 b.timing.nregions);
    cr_assert_eq(find(&b, "two")->call_counts[0], 1);
    cr_assert_eq(find(&b, "three")->call_counts[0], 1);
    cr_assert(strstr(b.likwid_status, "Init..Close cycles 2 to 3 of process"), "%s",
              b.likwid_status);
    sl_run_free(&a);
    sl_run_free(&b);
}
