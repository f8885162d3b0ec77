/* core/likwid/group_match.h: a custom event set recognised by the group files of
 * its architecture (written here into a temporary perfgroups folder):
 * exact sets in any order, a group without the counters likwid-mpirun does
 * not hand every rank, an exact match preferred to such a partial one,
 * groups the events do not tell apart (not named, the metrics they define
 * alike), no match ("Custom", no metrics), counters with options as text,
 * bad sets and folders refused with one line. */
#include <criterion/criterion.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "group_match.h"

static char dir[] = "/tmp/sl-group-match.XXXXXX";

static void put(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/arch/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static const char clock_txt[] = "SHORT clock\n\nEVENTSET\n"
                                "FIXC0 INSTR\nFIXC1 CORE\nFIXC2 REF\nPWR0 PKG_ENERGY\n\n"
                                "METRICS\nRuntime (RDTSC) [s] time\nCPI FIXC1/FIXC0\n"
                                "Clock [MHz] 1.E-06*(FIXC1/FIXC2)/inverseClock\n"
                                "Energy [J] PWR0\nPower [W] PWR0/time\n\nLONG\nx\n";
/* the same core events with an uncore counter of its own */
static const char mem_txt[] = "EVENTSET\nFIXC0 INSTR\nFIXC1 CORE\nFIXC2 REF\nMBOX0C1 CAS_RD\n\n"
                              "METRICS\nRuntime (RDTSC) [s] time\nCPI FIXC1/FIXC0\n"
                              "Clock [MHz] 1.E-06*FIXC1/FIXC2/inverseClock\n"
                              "Bandwidth [MBytes/s] 1.0E-06*MBOX0C1*64/time\n";
/* CLOCK's events and an uncore counter: CLOCK's set is also CLOCKX's
 * without it, and CLOCK (exact) wins */
static const char clockx_txt[] = "EVENTSET\nFIXC0 INSTR\nFIXC1 CORE\nFIXC2 REF\nPWR0 PKG_ENERGY\n"
                                 "UBOXFIX UNCORE_CLOCK\n\nMETRICS\nRuntime (RDTSC) [s] time\n"
                                 "CPI FIXC1/FIXC0\nClock [MHz] 1.E-06*(FIXC1/FIXC2)/inverseClock\n"
                                 "Energy [J] PWR0\n";
/* no other group has PMC1 */
static const char l3_txt[] = "EVENTSET\nFIXC0 INSTR\nPMC1 L3_ACCESS\nCPMC0 L3_MISS\n\n"
                             "METRICS\nAccess rate PMC1/FIXC0\nMiss ratio CPMC0/PMC1\n";
/* two groups with one EVENTSET (as zen2's FLOPS_DP and FLOPS_SP) */
static const char dp_txt[] = "EVENTSET\nFIXC1 CORE\nPMC0 FLOPS\nPMC3:EDGEDETECT STALLS\n\n"
                             "METRICS\nRuntime (RDTSC) [s] time\nDP [MFLOP/s] 1.0E-06*PMC0/time\n"
                             "Stalls PMC3:EDGEDETECT\n";
static const char sp_txt[] = "EVENTSET\nFIXC1 CORE\nPMC0 FLOPS\nPMC3:EDGEDETECT STALLS\n\n"
                             "METRICS\nRuntime (RDTSC) [s] time\nSP [MFLOP/s] 1.0E-06*PMC0/time\n"
                             "Stalls PMC3:EDGEDETECT\n";

static void setup(void)
{
    cr_assert_not_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/arch", dir);
    cr_assert_eq(mkdir(path, 0700), 0);
    put("CLOCK.txt", clock_txt);
    put("MEM.txt", mem_txt);
    put("FLOPS_DP.txt", dp_txt);
    put("FLOPS_SP.txt", sp_txt);
    put("CLOCKX.txt", clockx_txt);
    put("L3.txt", l3_txt);
    put("BROKEN.txt", "EVENTSET\nFIXC0\n");     /* one word: not read, counted */
    put("notes.md", "EVENTSET\nFIXC0 INSTR\n"); /* not a group file */
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(group_match, .init = setup, .fini = teardown);

static const sl_group_node clock1g = {.clock_hz = 1e9, .num_sockets = NAN,
                                      .num_numadomains = NAN};

/* A region of `n` events in the set's order, 2 threads: event e of thread
 * t is 10 * (e + 1) * (t + 1); times 2 and 4 s. */
static sl_region *region(sl_likwid *lw, size_t n, sl_source src)
{
    sl_region *r = sl_likwid_add(lw, "r", 1, 0, "Custom", src, 2, n, 0, 0);
    cr_assert_not_null(r);
    for (size_t e = 0; e < n; e++)
        for (size_t t = 0; t < 2; t++)
            r->events[e * 2 + t] = 10.0 * (double)(e + 1) * (double)(t + 1);
    r->times[0] = 2;
    r->times[1] = 4;
    return r;
}

static long metric(const sl_region *r, const char *name)
{
    for (size_t m = 0; m < r->nmetrics; m++)
        if (!strcmp(r->metric_names[m], name))
            return (long)m;
    return -1;
}

/* Matches set, applies it to one fresh region, returns the status. */
static char *run(const char *set, sl_likwid *lw, sl_region **r, size_t n, int *ncand)
{
    sl_group_match m;
    sl_diag d;
    sl_diag_init(&d);
    cr_assert_eq(sl_group_match_set(dir, "arch", set, &m, &d), 0, "%s", d.kept ? d.lines[0] : "");
    cr_assert_eq(m.unread, 1, "BROKEN.txt: read as a group");
    *ncand = (int)m.ncand;
    sl_likwid_init(lw);
    *r = region(lw, n, SL_SOURCE_MARKER_FILE);
    char *status = malloc(4096);
    cr_assert_eq(sl_group_match_apply(&m, "arch", &clock1g, lw, 0, SL_SOURCE_MARKER_FILE, status,
                                      4096), 0);
    sl_group_match_free(&m);
    sl_diag_free(&d);
    return status;
}

Test(group_match, exact_in_any_order_is_named_with_every_metric)
{
    sl_likwid lw;
    sl_region *r;
    int n;
    /* CLOCK's events, PWR0 first */
    char *st = run("PKG_ENERGY:PWR0,INSTR:FIXC0,CORE:FIXC1,REF:FIXC2", &lw, &r, 4, &n);
    cr_assert_eq(n, 1);
    cr_assert(strstr(st, "group 0: the events of CLOCK of arch: named CLOCK (recognised from its "
                         "events), 5 metrics"), "%s", st);
    cr_assert_str_eq(r->group_name, "CLOCK");
    cr_assert_eq(r->nmetrics, 5);
    cr_assert_str_eq(r->event_names[0], "PKG_ENERGY");   /* the set's order kept */
    cr_assert_str_eq(r->counter_names[3], "FIXC2");
    /* thread 1: PWR0 = 20, FIXC0 = 40, FIXC1 = 60, FIXC2 = 80; time 4 */
    cr_assert_eq(r->metrics[metric(r, "CPI") * 2 + 1], 60.0 / 40.0);
    cr_assert_eq(r->metrics[metric(r, "Power [W]") * 2 + 1], 20.0 / 4.0);
    cr_assert_eq(r->metrics[metric(r, "Runtime (RDTSC) [s]") * 2 + 0], 2);
    cr_assert(fabs(r->metrics[metric(r, "Clock [MHz]") * 2 + 0] - 1e-6 * 30.0 / 40.0 * 1e9) < 1e-9);
    sl_likwid_free(&lw);
    free(st);
}

Test(group_match, without_uncore_counters_named_when_one_group_fits)
{
    sl_likwid lw;
    sl_region *r;
    int n;
    char *st = run("L3_ACCESS:PMC1,INSTR:FIXC0", &lw, &r, 2, &n);
    cr_assert_eq(n, 1);
    cr_assert(strstr(st, "group 0: the events of L3 of arch without CPMC0 (counters likwid-mpirun "
                         "does not hand every rank): named L3 (recognised from its events), 1 "
                         "metrics, left out: Miss ratio (needs CPMC0, not counted here)"), "%s", st);
    cr_assert_str_eq(r->group_name, "L3");
    cr_assert_eq(r->nmetrics, 1);
    cr_assert_str_eq(r->metric_names[0], "Access rate");
    cr_assert_eq(r->metrics[1], 20.0 / 40.0);    /* thread 1: PMC1 20, FIXC0 40 */
    cr_assert_str_eq(r->event_names[1], "INSTR");
    sl_likwid_free(&lw);
    free(st);
}

Test(group_match, core_events_of_several_groups_give_what_they_share)
{
    sl_likwid lw;
    sl_region *r;
    int n;
    char *st = run("INSTR:FIXC0,CORE:FIXC1,REF:FIXC2", &lw, &r, 3, &n);
    cr_assert_eq(n, 3, "CLOCK, CLOCKX and MEM");
    cr_assert(strstr(st, "the events of CLOCK, CLOCKX or MEM of arch without counters "
                         "likwid-mpirun does not hand every rank: not named"), "%s", st);
    cr_assert(strstr(st, "2 metrics they define alike"), "%s", st);
    cr_assert(strstr(st, "Energy [J] (needs PWR0, not counted here)"), "%s", st);
    /* MEM computes the clock otherwise: not taken from any of them */
    cr_assert(strstr(st, "Clock [MHz] (not alike in every one of them)"), "%s", st);
    cr_assert_str_eq(r->group_name, "Custom");
    cr_assert_eq(r->nmetrics, 2);
    cr_assert_eq(metric(r, "Clock [MHz]"), -1);
    cr_assert_eq(r->metrics[metric(r, "CPI") * 2 + 0], 20.0 / 10.0);
    sl_likwid_free(&lw);
    free(st);
}

Test(group_match, identical_eventsets_not_named)
{
    sl_likwid lw;
    sl_region *r;
    int n;
    /* the option is part of the counter, matched as text */
    char *st = run("CORE:FIXC1,FLOPS:PMC0,STALLS:PMC3:EDGEDETECT", &lw, &r, 3, &n);
    cr_assert_eq(n, 2);
    cr_assert(strstr(st, "group 0: the events of FLOPS_DP or FLOPS_SP of arch: not named "
                         "(recognised from its events, which do not tell these groups apart), 2 "
                         "metrics they define alike, left out: DP [MFLOP/s] (not alike in every "
                         "one of them)"), "%s", st);
    cr_assert_eq(r->nmetrics, 2);
    cr_assert_eq(r->metrics[metric(r, "Stalls") * 2 + 1], 60);
    cr_assert_str_eq(r->counter_names[2], "PMC3:EDGEDETECT");
    sl_likwid_free(&lw);
    free(st);
    /* without the option: no group has these events */
    st = run("CORE:FIXC1,FLOPS:PMC0,STALLS:PMC3", &lw, &r, 3, &n);
    cr_assert_eq(n, 0);
    cr_assert(strstr(st, "group 0: custom event set (no group of arch has these events): no "
                         "metrics"), "%s", st);
    cr_assert_str_eq(r->group_name, "Custom");
    cr_assert_eq(r->nmetrics, 0);
    cr_assert_str_eq(r->event_names[2], "STALLS");  /* a marker-file region gets the set's names */
    sl_likwid_free(&lw);
    free(st);
}

Test(group_match, a_missing_core_counter_is_no_match)
{
    sl_likwid lw;
    sl_region *r;
    int n;
    /* CLOCK without FIXC2: likwid-mpirun hands every rank FIXC counters */
    char *st = run("INSTR:FIXC0,CORE:FIXC1,PKG_ENERGY:PWR0", &lw, &r, 3, &n);
    cr_assert_eq(n, 0, "%s", st);
    cr_assert_eq(r->nmetrics, 0);
    sl_likwid_free(&lw);
    free(st);
}

Test(group_match, regions_of_other_events_left_alone)
{
    sl_group_match m;
    sl_diag d;
    sl_diag_init(&d);
    cr_assert_eq(sl_group_match_set(dir, "arch", "L3_ACCESS:PMC1,INSTR:FIXC0", &m, &d), 0);
    sl_likwid lw;
    sl_likwid_init(&lw);
    sl_region *other_n = region(&lw, 3, SL_SOURCE_FULL_API);           /* 3 events */
    (void)other_n;
    sl_region *named = sl_likwid_add(&lw, "n", 1, 0, "Custom", SL_SOURCE_FULL_API, 1, 2, 0, 1);
    cr_assert_not_null(named);
    cr_assert_eq(sl_set_string(&named->event_names[0], "L3_ACCESS"), 0);
    cr_assert_eq(sl_set_string(&named->event_names[1], "OTHER"), 0);   /* not the set's */
    sl_region *gid1 = region(&lw, 2, SL_SOURCE_FULL_API);
    gid1->group_id = 1;
    sl_region *src = region(&lw, 2, SL_SOURCE_MARKER_FILE);
    char status[1024];
    cr_assert_eq(sl_group_match_apply(&m, "arch", &clock1g, &lw, 0, SL_SOURCE_FULL_API, status,
                                      sizeof status), 0);
    for (size_t i = 0; i < lw.nregions; i++) {
        cr_assert_str_eq(lw.regions[i].group_name, "Custom", "region %zu", i);
        cr_assert_eq(lw.regions[i].nmetrics, 0, "region %zu", i);
    }
    cr_assert_eq(src->has_names, 0);
    cr_assert(strstr(status, "(not applied to 2 regions of this group: their events are not the "
                             "set's)"), "%s", status);
    cr_assert_eq(sl_group_match_apply(&m, "arch", &clock1g, &lw, 7, SL_SOURCE_FULL_API, status,
                                      sizeof status), 0);
    cr_assert(strstr(status, "group 7: ") && strstr(status, "(no region of this group)"), "%s",
              status);
    sl_likwid_free(&lw);
    sl_group_match_free(&m);
    sl_diag_free(&d);
}

/* set must be refused with -EINVAL and one line holding want */
static void bad_set(const char *set, const char *arch, const char *want)
{
    sl_group_match m;
    sl_diag d;
    sl_diag_init(&d);
    cr_assert_eq(sl_group_match_set(dir, arch, set, &m, &d), -EINVAL, "%s", set);
    cr_assert_eq(d.count, 1, "%s: %zu lines", set, d.count);
    cr_assert(strstr(d.lines[0], want), "'%s' lacks '%s'", d.lines[0], want);
    sl_diag_free(&d);
}

Test(group_match, bad_sets_and_folders_refused)
{
    bad_set("FLOPS_DP", "arch", "LIKWID_EVENTS: 'FLOPS_DP': expected EVENT:COUNTER");
    bad_set("A:PMC0,:PMC1", "arch", "':PMC1': expected EVENT:COUNTER");
    bad_set("A:PMC0,B:", "arch", "'B:': expected EVENT:COUNTER");
    bad_set("A:PMC0,B:PMC0", "arch", "counter PMC0 twice in one set");
    bad_set("A:PMC0", "..", "architecture '..': expected a perfgroups folder's name");
    bad_set("A:PMC0", "a/b", "expected a perfgroups folder's name");
    sl_group_match m;
    sl_diag d;
    sl_diag_init(&d);
    cr_assert_eq(sl_group_match_set(dir, "nosuch", "A:PMC0", &m, &d), -ENOENT);
    cr_assert(strstr(d.lines[0], "/nosuch: cannot list: No such file or directory: expected "
                                 "LIKWID's group files of nosuch"), "%s", d.lines[0]);
    sl_diag_free(&d);
}
