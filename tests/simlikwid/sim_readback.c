/* Simulated LIKWID, the read-back ("full") API scope-likwid-collect uses:
 * perfmon_init + addEventSet + readMarkerFile + getters, with names and
 * metrics from sim_groups. It reads the marker file the way LIKWID 5.2's
 * reader does (cpu < 0 lines skipped, threads = the other value lines), with
 * its own bounds-checked parser. Faults on demand for the collector's tests:
 * SIMLIKWID_READBACK=ok|fail|segv|hang|exit|garbage|truncate|abort, raised in
 * perfmon_init, or in perfmon_readMarkerFile with SIMLIKWID_READBACK_AT=read. */
#include <errno.h>
#include <likwid.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_groups.h"

#ifndef SIM_LIKWID_MINOR
#define SIM_LIKWID_MINOR 2
#endif
/* The bytes of a region line's tag field LIKWID's reader keeps: 99 in 5.2,
 * 139 in 5.5 (its tag buffers are 100 and 140 bytes). */
#define SIM_TAG_FIELD (SIM_LIKWID_MINOR >= 5 ? 139 : 99)

typedef struct rb_region {
    char *tag;
    int group;
    int nevents;
    int nthreads;
    int *cpus;
    double *times;
    int *counts;
    double *ev;         /* [nthreads * nevents] */
} rb_region;

static struct {
    int initialized;
    int mode;
    int ncpus;
    int ngroups;
    sim_group groups[64];
    int nregions;
    rb_region *regions;
    int destroyed;
} R;

static void fault(const char *where)
{
    const char *f = getenv("SIMLIKWID_READBACK");
    const char *at = getenv("SIMLIKWID_READBACK_AT");
    if (!f || strcmp(f, "ok") == 0 || strcmp(at ? at : "init", where) != 0)
        return;
    if (strcmp(f, "segv") == 0)
        raise(SIGSEGV);
    if (strcmp(f, "abort") == 0)
        abort();
    if (strcmp(f, "exit") == 0)
        exit(1);
    if (strcmp(f, "hang") == 0)
        for (;;)
            pause();
    if (strcmp(f, "garbage") == 0) {
        static const char junk[] = "\x01\xffgarbage 12 3\n\n%%%% not an answer\x7f\n";
        ssize_t r = write(1, junk, sizeof junk - 1);
        (void)r;
    }
    if (strcmp(f, "truncate") == 0) {
        static const char head[] = "scope-likwid-wire 1\nkind likwid\nlikwid full_api 0\n";
        ssize_t r = write(1, head, sizeof head - 1);
        (void)r;
        _exit(0);
    }
}

static int failing(const char *where)
{
    const char *f = getenv("SIMLIKWID_READBACK");
    const char *at = getenv("SIMLIKWID_READBACK_AT");
    return f && strcmp(f, "fail") == 0 && strcmp(at ? at : "init", where) == 0;
}

void HPMmode(int mode)
{
    R.mode = mode;
}

int topology_init(void)
{
    return 0;
}

int perfmon_init(int nrThreads, const int *threadsToCpu)
{
    fault("init");
    if (failing("init")) {
        fprintf(stderr, "ERROR - simlikwid: Cannot get access to performance counters\n");
        return -EPERM;
    }
    if (nrThreads <= 0 || !threadsToCpu)
        return -EINVAL;
    R.initialized = 1;
    R.ncpus = nrThreads;
    init_configuration();
    sim_timer_start();
    return 0;
}

int perfmon_addEventSet(const char *eventCString)
{
    if (!R.initialized)
        return -EINVAL;
    if (R.ngroups == (int)(sizeof R.groups / sizeof R.groups[0]))
        return -ENOMEM;
    int rc = sim_group_parse(eventCString, &R.groups[R.ngroups]);
    if (rc < 0) {
        sim_group_free(&R.groups[R.ngroups]);
        return rc;
    }
    return R.ngroups++;
}

int perfmon_getNumberOfEvents(int groupId)
{
    if (!R.initialized)
        return sim_marker_nevents(groupId);     /* the application's process */
    if (groupId < 0 || groupId >= R.ngroups)
        return -EINVAL;
    return R.groups[groupId].nevents;
}

static int bad_file(FILE *f, const char *why, int line)
{
    fprintf(stderr, "simlikwid: marker file line %d: %s\n", line, why);
    fclose(f);
    return -EINVAL;
}

/* Parses a value line's numbers into the region's next thread slot. */
static int value_line(char *line, int lineno, FILE *f)
{
    char *p = line, *end;
    long v[4];
    for (int i = 0; i < 3; i++) {
        v[i] = strtol(p, &end, 10);
        if (end == p)
            return bad_file(f, "bad value line", lineno);
        p = end;
    }
    unsigned long count = strtoul(p, &end, 10);
    if (end == p)
        return bad_file(f, "bad count", lineno);
    p = end;
    double time = strtod(p, &end);
    if (end == p)
        return bad_file(f, "bad time", lineno);
    p = end;
    v[3] = strtol(p, &end, 10);
    if (end == p || v[3] < 0 || v[3] > 100000)
        return bad_file(f, "bad event count", lineno);
    p = end;
    if (v[0] < 0 || v[0] >= R.nregions)
        return bad_file(f, "region id out of range", lineno);
    if (v[2] < 0)
        return 0; /* LIKWID skips cpu = -1 lines */
    rb_region *r = &R.regions[v[0]];
    if (r->nthreads >= R.ncpus)
        return bad_file(f, "more threads than CPUs", lineno);
    if (r->nthreads == 0) {
        r->nevents = (int)v[3];
        r->ev = calloc((size_t)R.ncpus * (size_t)r->nevents + 1, sizeof(double));
        if (!r->ev)
            return bad_file(f, "out of memory", lineno);
    } else if (r->nevents != v[3]) {
        return bad_file(f, "event count differs between threads", lineno);
    }
    int t = r->nthreads++;
    r->cpus[t] = (int)v[2];
    r->counts[t] = (int)count;
    r->times[t] = time;
    for (int e = 0; e < r->nevents; e++) {
        double d = strtod(p, &end);
        if (end == p)
            return bad_file(f, "missing event value", lineno);
        r->ev[(size_t)t * (size_t)r->nevents + (size_t)e] = d;
        p = end;
    }
    return 0;
}

int perfmon_readMarkerFile(const char *filename)
{
    fault("read");
    if (failing("read"))
        return -EINVAL;
    if (!R.initialized || !filename)
        return -EINVAL;
    FILE *f = fopen(filename, "r");
    if (!f)
        return -EINVAL;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, threads, regions, groups;
    if (getline(&line, &cap, f) < 0 || sscanf(line, "%d %d %d", &threads, &regions, &groups) != 3 ||
        regions < 0 || regions > 1000000) {
        free(line);
        return bad_file(f, "bad header", 1);
    }
    lineno = 1;
    R.nregions = regions;
    R.regions = calloc((size_t)regions + 1, sizeof *R.regions);
    if (!R.regions) {
        free(line);
        return bad_file(f, "out of memory", 1);
    }
    for (int i = 0; i < regions; i++) {
        R.regions[i].cpus = calloc((size_t)R.ncpus, sizeof(int));
        R.regions[i].times = calloc((size_t)R.ncpus, sizeof(double));
        R.regions[i].counts = calloc((size_t)R.ncpus, sizeof(int));
        R.regions[i].tag = strdup("");
        if (!R.regions[i].cpus || !R.regions[i].times || !R.regions[i].counts || !R.regions[i].tag) {
            free(line);
            return bad_file(f, "out of memory", 1);
        }
    }
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        char *colon = strchr(line, ':');
        if (colon) {
            /* LIKWID keeps a fixed number of bytes of the tag field (its
             * "-<group>" included), then takes the last '-' of those */
            if (strlen(colon + 1) > SIM_TAG_FIELD)
                colon[1 + SIM_TAG_FIELD] = '\0';
            char *dash = strrchr(colon + 1, '-');
            long id = strtol(line, NULL, 10);
            if (!dash || id < 0 || id >= regions) {
                free(line);
                return bad_file(f, "bad region line", lineno);
            }
            rb_region *r = &R.regions[id];
            free(r->tag);
            r->tag = strndup(colon + 1, (size_t)(dash - colon - 1));
            r->group = atoi(dash + 1);
            if (!r->tag) {
                free(line);
                return bad_file(f, "out of memory", lineno);
            }
            continue;
        }
        if (value_line(line, lineno, f) < 0) {
            free(line);
            return -EINVAL;
        }
    }
    free(line);
    fclose(f);
    return regions;
}

static rb_region *reg(int region)
{
    if (!R.initialized || region < 0 || region >= R.nregions)
        return NULL;
    return &R.regions[region];
}

int perfmon_getNumberOfRegions(void)
{
    return R.initialized ? R.nregions : -EINVAL;
}

int perfmon_getGroupOfRegion(int region)
{
    rb_region *r = reg(region);
    return r ? r->group : -EINVAL;
}

char *perfmon_getTagOfRegion(int region)
{
    rb_region *r = reg(region);
    return r ? r->tag : NULL;
}

int perfmon_getEventsOfRegion(int region)
{
    rb_region *r = reg(region);
    return r ? r->nevents : -EINVAL;
}

int perfmon_getThreadsOfRegion(int region)
{
    rb_region *r = reg(region);
    return r ? r->nthreads : -EINVAL;
}

int perfmon_getCpulistOfRegion(int region, int count, int *cpulist)
{
    rb_region *r = reg(region);
    if (!r || !cpulist)
        return -EINVAL;
    int n = count < r->nthreads ? count : r->nthreads;
    for (int i = 0; i < n; i++)
        cpulist[i] = r->cpus[i];
    return n;
}

double perfmon_getTimeOfRegion(int region, int thread)
{
    rb_region *r = reg(region);
    if (!r || thread < 0 || thread >= r->nthreads)
        return -EINVAL;
    return r->times[thread];
}

int perfmon_getCountOfRegion(int region, int thread)
{
    rb_region *r = reg(region);
    if (!r || thread < 0 || thread >= r->nthreads)
        return -EINVAL;
    return r->counts[thread];
}

double perfmon_getResultOfRegionThread(int region, int event, int thread)
{
    rb_region *r = reg(region);
    if (!r || thread < 0 || thread >= r->nthreads || event < 0 || event >= r->nevents)
        return -EINVAL;
    return r->ev[(size_t)thread * (size_t)r->nevents + (size_t)event];
}

static sim_group *grp(int groupId)
{
    if (!R.initialized || groupId < 0 || groupId >= R.ngroups)
        return NULL;
    return &R.groups[groupId];
}

int perfmon_getNumberOfMetrics(int groupId)
{
    sim_group *g = grp(groupId);
    return g ? g->nmetrics : -EINVAL;
}

double perfmon_getMetricOfRegionThread(int region, int metricId, int threadId)
{
    rb_region *r = reg(region);
    sim_group *g = r ? grp(r->group) : NULL;
    if (!g || threadId < 0 || threadId >= r->nthreads || metricId < 0 || metricId >= g->nmetrics)
        return NAN;
    double ev[16] = {0};
    for (int e = 0; e < r->nevents && e < 16; e++)
        ev[e] = r->ev[(size_t)threadId * (size_t)r->nevents + (size_t)e];
    return sim_metric(g, metricId, ev, r->times[threadId], sim_inverse_clock());
}

char *perfmon_getEventName(int groupId, int eventId)
{
    sim_group *g = grp(groupId);
    return g && eventId >= 0 && eventId < g->nevents ? g->event_names[eventId] : NULL;
}

char *perfmon_getCounterName(int groupId, int eventId)
{
    sim_group *g = grp(groupId);
    return g && eventId >= 0 && eventId < g->nevents ? g->counter_names[eventId] : NULL;
}

char *perfmon_getMetricName(int groupId, int metricId)
{
    sim_group *g = grp(groupId);
    return g && metricId >= 0 && metricId < g->nmetrics ? (char *)g->metric_names[metricId] : NULL;
}

char *perfmon_getGroupName(int groupId)
{
    sim_group *g = grp(groupId);
    return g ? g->name : NULL;
}

static void free_results(void)
{
    for (int i = 0; i < R.nregions; i++) {
        free(R.regions[i].tag);
        free(R.regions[i].cpus);
        free(R.regions[i].times);
        free(R.regions[i].counts);
        free(R.regions[i].ev);
    }
    free(R.regions);
    R.regions = NULL;
    R.nregions = 0;
}

/* LIKWID frees the results here and again in perfmon_finalize. */
void perfmon_destroyMarkerResults(void)
{
    free_results();
    R.destroyed = 1;
}

void perfmon_finalize(void)
{
    if (R.destroyed) {
        const char *strict = getenv("SIMLIKWID_STRICT_HAZARDS");
        fprintf(stderr, "simlikwid: perfmon_finalize after destroyMarkerResults (double free)\n");
        if (!(strict && strcmp(strict, "0") == 0))
            raise(SIGSEGV);
    }
    free_results();
    for (int g = 0; g < R.ngroups; g++)
        sim_group_free(&R.groups[g]);
    R.ngroups = 0;
    R.initialized = 0;
}
