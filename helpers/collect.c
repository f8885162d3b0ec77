/* scope-likwid-collect MARKERFILE: reads LIKWID's marker file back through
 * LIKWID's full API (names, counters, metrics) and prints the result in the
 * wire format (docs/WIRE.md) on stdout. It runs as a separate process
 * because LIKWID's perfmon module may exit, crash or hang on hosts where it
 * cannot count; the shim treats any failure here as "no names". The call
 * sequence is the one in the spec likwid-api.md, nothing more. */
#include <errno.h>
#include <likwid.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "likwid_result.h"
#include "wire.h"

/* LIKWID's reader overflows a fixed buffer beyond about 78 events per line. */
#define MAX_EVENTS_PER_LINE 75
/* ... copies the values of a line into a 1024-byte buffer ... */
#define MAX_VALUES_BYTES 1000
/* ... splits lines longer than its 2048-byte buffer ... */
#define MAX_LINE 2000
/* ... and reads at most 99 bytes of a tag (with its "-<group>" suffix). */
#define MAX_TAG_FIELD 99

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "scope-likwid-collect: %s\n", msg);
    exit(1);
}

static const char *need_env(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        die("%s is not set", name);
    return v;
}

/* "0,1,4": the CPUs of LIKWID_THREADS, in order (likwid-perfctr expands ranges). */
static int *parse_cpus(const char *s, int *n)
{
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    int *cpus = calloc(cap, sizeof *cpus);
    if (!cpus)
        die("out of memory");
    int k = 0;
    const char *p = s;
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || v > 1 << 20 || (*end != ',' && *end != '\0'))
            die("LIKWID_THREADS='%s': expected a comma-separated list of CPU numbers", s);
        cpus[k++] = (int)v;
        if (*end == '\0')
            break;
        p = end + 1;
    }
    *n = k;
    return cpus;
}

/* Splits LIKWID_EVENTS on '|' (in place). */
static char **split_sets(char *s, int *n)
{
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == '|';
    char **v = calloc(cap, sizeof *v);
    if (!v)
        die("out of memory");
    int k = 0;
    for (char *p = s;;) {
        char *bar = strchr(p, '|');
        if (bar)
            *bar = '\0';
        if (!*p)
            die("LIKWID_EVENTS has an empty event set: expected GROUP|GROUP...");
        v[k++] = p;
        if (!bar)
            break;
        p = bar + 1;
    }
    *n = k;
    return v;
}

/* Number of blank-separated tokens in [p, p+n); *rest = offset of the 7th
 * (the first event value), n when there is none. */
static size_t count_tokens(const char *p, size_t n, size_t *rest)
{
    size_t k = 0;
    *rest = n;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != ' ' && (i == 0 || p[i - 1] == ' ')) {
            if (++k == 7)
                *rest = i;
        }
    }
    return k;
}

/* Refuses the files LIKWID 5.2's reader would overflow on: too many events
 * or too long a line, region ids outside the header's count, more value
 * lines for a region than the header has threads. Own code, no LIKWID. */
static void prescan(const char *path)
{
    char *buf;
    size_t len;
    int rc = sl_read_file(path, 1u << 30, &buf, &len);
    if (rc < 0)
        die("cannot read %s: %s", path, strerror(-rc));
    long long threads = -1, regions = -1, groups = -1;
    long long *seen = NULL;
    size_t lineno = 0;
    for (size_t pos = 0; pos < len;) {
        const char *p = buf + pos;
        const char *nl = memchr(p, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - p) : len - pos;
        pos += n + 1;
        lineno++;
        if (n > MAX_LINE)
            die("%s:%zu: line of %zu bytes: expected at most %d (LIKWID's reader would split it)",
                path, lineno, n, MAX_LINE);
        char line[MAX_LINE + 1];
        memcpy(line, p, n);
        line[n] = '\0';
        if (lineno == 1) {
            if (sscanf(line, "%lld %lld %lld", &threads, &regions, &groups) != 3 || threads < 0 ||
                regions < 0 || groups < 0 || regions > (long long)len)
                die("%s:1: bad header: expected '<threads> <regions> <groups>'", path);
            seen = calloc((size_t)regions + 1, sizeof *seen);
            if (!seen)
                die("out of memory");
            continue;
        }
        if (n == 0)
            continue;
        long long id = -1, gid, cpu;
        char *colon = strchr(line, ':');
        if (colon) {
            if (sscanf(line, "%lld:", &id) != 1 || id < 0 || id >= regions)
                die("%s:%zu: region id outside 0..%lld: expected a region line of the header's "
                    "regions", path, lineno, regions - 1);
            /* without a '-' in what LIKWID reads, it leaves the tag unset */
            const char *dash = memrchr(colon + 1, '-', strnlen(colon + 1, MAX_TAG_FIELD));
            if (!dash)
                die("%s:%zu: no '-<group>' within %d bytes of the tag: expected a shorter tag",
                    path, lineno, MAX_TAG_FIELD);
            if (seen[id] < 0)
                die("%s:%zu: region %lld described twice: expected one line per region", path,
                    lineno, id);
            seen[id] = -1 - seen[id]; /* negative: described; magnitude: value lines */
            continue;
        }
        size_t rest;
        size_t tokens = count_tokens(line, n, &rest);
        if (sscanf(line, "%lld %lld %lld", &id, &gid, &cpu) != 3 || id < 0 || id >= regions ||
            tokens < 6)
            die("%s:%zu: bad value line: expected '<region> <group> <cpu> <count> <time> "
                "<nevents> values' with a region id below %lld", path, lineno, regions);
        if (tokens - 6 > MAX_EVENTS_PER_LINE)
            die("%s:%zu: %zu events on one line: expected at most %d (LIKWID's reader would "
                "overflow)", path, lineno, tokens - 6, MAX_EVENTS_PER_LINE);
        if (n - rest > MAX_VALUES_BYTES)
            die("%s:%zu: %zu bytes of event values: expected at most %d (LIKWID's reader would "
                "overflow)", path, lineno, n - rest, MAX_VALUES_BYTES);
        if (cpu >= 0) {
            long long k = seen[id] < 0 ? -1 - seen[id] : seen[id];
            if (++k > threads)
                die("%s:%zu: more value lines for region %lld than the header's %lld threads: "
                    "expected at most one per thread", path, lineno, id, threads);
            seen[id] = seen[id] < 0 ? -1 - k : k;
        }
    }
    if (lineno == 0)
        die("%s: empty file: expected a LIKWID marker file", path);
    for (long long id = 0; id < regions; id++)
        if (seen[id] >= 0)
            die("%s: region %lld has no region line: expected '%lld:<tag>-<group>'", path, id, id);
    free(seen);
    free(buf);
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* Fills one region from LIKWID's getters. */
static void read_region(sl_likwid *lw, int r, int ngroups)
{
    const char *tag = perfmon_getTagOfRegion(r);
    if (!tag)
        die("perfmon_getTagOfRegion(%d) failed", r);
    int gid = perfmon_getGroupOfRegion(r);
    if (gid < 0 || gid >= ngroups)
        die("region %d: group %d outside the %d event sets of LIKWID_EVENTS", r, gid, ngroups);
    int nthreads = perfmon_getThreadsOfRegion(r);
    if (nthreads < 0)
        die("perfmon_getThreadsOfRegion(%d) failed (%d)", r, nthreads);
    int group_events = perfmon_getNumberOfEvents(gid);
    if (group_events < 0)
        die("perfmon_getNumberOfEvents(%d) failed (%d)", gid, group_events);
    /* a region without value lines has no event count of its own */
    int nevents = nthreads ? perfmon_getEventsOfRegion(r) : group_events;
    if (nevents < 0 || nevents > group_events)
        die("region %d has %d events: expected 0..%d (its group's events)", r, nevents,
            group_events);
    int nmetrics = perfmon_getNumberOfMetrics(gid);
    if (nmetrics < 0)
        die("perfmon_getNumberOfMetrics(%d) failed (%d)", gid, nmetrics);
    /* LIKWID's threads, then only those that ran the region: 5.5.0/5.5.1
     * write a placeholder (cpu 0, count 0) for a thread without data and
     * LIKWID's reader counts it as a thread; no real thread has count 0. */
    int *cpus = calloc((size_t)nthreads + 1, sizeof *cpus);
    int *keep = calloc((size_t)nthreads + 1, sizeof *keep);
    if (!cpus || !keep)
        die("out of memory");
    if (nthreads) {
        int got = perfmon_getCpulistOfRegion(r, nthreads, cpus);
        if (got != nthreads)
            die("perfmon_getCpulistOfRegion(%d) gave %d CPUs: expected %d", r, got, nthreads);
    }
    size_t T = 0;
    for (int t = 0; t < nthreads; t++)
        if (perfmon_getCountOfRegion(r, t) > 0)
            keep[T++] = t;
    sl_region *reg = sl_likwid_add(lw, tag, strlen(tag), gid, or_empty(perfmon_getGroupName(gid)),
                                   SL_SOURCE_FULL_API, T, (size_t)nevents, (size_t)nmetrics, 1);
    if (!reg)
        die("out of memory");
    for (size_t k = 0; k < T; k++) {
        reg->cpus[k] = cpus[keep[k]];
        reg->times[k] = perfmon_getTimeOfRegion(r, keep[k]);
        reg->call_counts[k] = perfmon_getCountOfRegion(r, keep[k]);
    }
    for (int e = 0; e < nevents; e++) {
        if (sl_set_string(&reg->event_names[e], or_empty(perfmon_getEventName(gid, e))) < 0 ||
            sl_set_string(&reg->counter_names[e], or_empty(perfmon_getCounterName(gid, e))) < 0)
            die("out of memory");
        for (size_t k = 0; k < T; k++)
            reg->events[(size_t)e * T + k] = perfmon_getResultOfRegionThread(r, e, keep[k]);
    }
    for (int m = 0; m < nmetrics; m++) {
        if (sl_set_string(&reg->metric_names[m], or_empty(perfmon_getMetricName(gid, m))) < 0)
            die("out of memory");
        for (size_t k = 0; k < T; k++)
            reg->metrics[(size_t)m * T + k] = perfmon_getMetricOfRegionThread(r, m, keep[k]);
    }
    free(cpus);
    free(keep);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        die("usage: scope-likwid-collect MARKERFILE");
    const char *path = argv[1];
    const char *mode = need_env("LIKWID_MODE");
    char *events = strdup(need_env("LIKWID_EVENTS"));
    const char *threads = need_env("LIKWID_THREADS");
    if (!events)
        die("out of memory");
    int ncpus, nsets;
    int *cpus = parse_cpus(threads, &ncpus);
    char **sets = split_sets(events, &nsets);
    prescan(path);

    if (init_configuration() != 0)
        die("init_configuration failed");
    HPMmode(atoi(mode));
    if (topology_init() != 0)
        die("topology_init failed");
    int rc = perfmon_init(ncpus, cpus);
    if (rc < 0)
        die("perfmon_init failed (%d)", rc);
    for (int i = 0; i < nsets; i++) {
        rc = perfmon_addEventSet(sets[i]);
        if (rc < 0)
            die("perfmon_addEventSet(%s) failed (%d)", sets[i], rc);
        if (rc != i)
            die("perfmon_addEventSet(%s) gave group %d: expected %d", sets[i], rc, i);
    }
    rc = perfmon_readMarkerFile(path);
    if (rc < 0)
        die("perfmon_readMarkerFile(%s) failed (%d)", path, rc);
    int nregions = perfmon_getNumberOfRegions();
    if (nregions < 0)
        die("perfmon_getNumberOfRegions failed (%d)", nregions);

    sl_likwid lw;
    sl_likwid_init(&lw);
    lw.source = SL_SOURCE_FULL_API;
    for (int r = 0; r < nregions; r++)
        read_region(&lw, r, nsets);
    /* finalize only: destroyMarkerResults before it would free twice */
    perfmon_finalize();

    rc = sl_wire_write_likwid(1, &lw);
    if (rc < 0)
        die("writing the answer failed: %s", strerror(-rc));
    sl_likwid_free(&lw);
    free(sets);
    free(events);
    free(cpus);
    return 0;
}
