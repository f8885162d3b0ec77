/* scope-likwid-collect MARKERFILE [LIBLIKWID [CYCLE_HZ CPU_HZ [ACCESSD]]]: reads
 * LIKWID's marker file back through LIKWID's full API (names, counters,
 * metrics) and prints the result in the wire format (docs/WIRE.md) on
 * stdout. It runs as a separate process
 * because LIKWID's perfmon module may exit, crash or hang on hosts where it
 * cannot count; the shim treats any failure here as "no names". The call
 * sequence is the one in the spec likwid-api.md, nothing more. LIKWID is the
 * library the application loaded (LIBLIKWID, the shim passes its path),
 * opened at run time; CYCLE_HZ and CPU_HZ are the clock that library
 * measured in the application, which LIKWID's timer here answers
 * (collect_clock.c) instead of measuring it again, and ACCESSD the access
 * daemon its configuration found, which answers LIKWID's look-up here
 * (collect_accessd.c). */
#include <dlfcn.h>
#include <errno.h>
#include <likwid.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect_accessd.h"
#include "collect_clock.h"
#include "collect_groups.h"
#include "fileio.h"
#include "likwid_result.h"
#include "likwid_version.h"
#include "parse_int.h"
#include "wire.h"

/* LIKWID's reader overflows a fixed buffer beyond about 78 events per line. */
#define MAX_EVENTS_PER_LINE 75
/* ... copies the values of a line into a 1024-byte buffer ... */
#define MAX_VALUES_BYTES 1000
/* ... and splits lines longer than its 2048-byte buffer. */
#define MAX_LINE 2000
/* LIKWID 5.5 writes every event of a thread whose values it lost as -EINVAL. */
#define LIKWID_EINVAL_VALUE (-22.0)

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

/* LIKWID, loaded at run time. */

/* The full-API functions the collector calls, one X() each. They are looked
 * up in the liblikwid the application loaded (its path is the second
 * argument), so one collector serves every LIKWID 5.x: no liblikwid is
 * linked in. Their types come from the LIKWID headers of the build (5.2.2);
 * these functions kept their signatures through 5.5. */
#define LIKWID_FNS(X)                                                                            \
    X(init_configuration) X(HPMmode) X(topology_init) X(perfmon_init) X(perfmon_addEventSet)    \
    X(perfmon_readMarkerFile) X(perfmon_getNumberOfRegions) X(perfmon_getGroupOfRegion)         \
    X(perfmon_getThreadsOfRegion) X(perfmon_getNumberOfEvents) X(perfmon_getEventsOfRegion)     \
    X(perfmon_getNumberOfMetrics) X(perfmon_getCpulistOfRegion) X(perfmon_getCountOfRegion)     \
    X(perfmon_getTimeOfRegion) X(perfmon_getEventName) X(perfmon_getCounterName)                \
    X(perfmon_getResultOfRegionThread) X(perfmon_getMetricName)                                 \
    X(perfmon_getMetricOfRegionThread) X(perfmon_getGroupName) X(perfmon_finalize)

static struct {
#define LIKWID_SLOT(name) __typeof__(&name) name;
    LIKWID_FNS(LIKWID_SLOT)
#undef LIKWID_SLOT
} lw_api;

/* Loads `path` (NULL: whichever liblikwid.so the loader finds) and resolves
 * every row of LIKWID_FNS, or says which library lacks what; its handle. */
static void *load_likwid(const char *path)
{
    const char *name = path ? path : "liblikwid.so";
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        die("cannot load LIKWID's library: %s", dlerror());
    char version[64];
    if (sl_likwid_version(h, version, sizeof version) == 0 && strncmp(version, "5.", 2) != 0)
        die("%s is LIKWID %s: expected LIKWID 5.x", name, version);
    void *p;
#define LIKWID_RESOLVE(fn)                                                                       \
    p = dlsym(h, #fn);                                                                           \
    if (!p)                                                                                      \
        die("%s (LIKWID version %s) has no %s: expected LIKWID 5.x's full API", name, version,   \
            #fn);                                                                                \
    memcpy(&lw_api.fn, &p, sizeof p);
    LIKWID_FNS(LIKWID_RESOLVE)
#undef LIKWID_RESOLVE
    return h;
}

/* The clock. */

/* CYCLE_HZ or CPU_HZ: a clock in Hz. */
static uint64_t parse_hz(const char *what, const char *s)
{
    long long v;
    if (sl_parse_i64(s, &v) != 0 || v <= 0)
        die("%s '%s': expected a clock in Hz (a whole number above 0)", what, s);
    return (uint64_t)v;
}

/* The given clock reaches LIKWID only through its PLT (collect_clock.c).
 * A library whose perfmon_init started its own timer has measured the
 * clock already; one whose metrics read their own clock gets its timer
 * started (it measures the clock): its metrics are then its own, as
 * without a given clock. One metric of the first region that has one
 * tells. */
static void check_clock(int nregions)
{
    if (sl_clock_given() && sl_clock_inits() == 0)
        sl_clock_own();
    for (int r = 0; sl_clock_given() && r < nregions; r++) {
        int gid = lw_api.perfmon_getGroupOfRegion(r);
        if (gid < 0 || lw_api.perfmon_getThreadsOfRegion(r) <= 0 ||
            lw_api.perfmon_getNumberOfMetrics(gid) <= 0)
            continue;
        unsigned long reads = sl_clock_reads();
        (void)lw_api.perfmon_getMetricOfRegionThread(r, 0, 0);
        if (sl_clock_reads() == reads)
            sl_clock_own();
        break;
    }
}

/* The marker file. */

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

/* Whether every value of a value line (from its 7th token) is LIKWID 5.5's
 * -EINVAL: the thread's values were lost (likwid_markerClose numbers a
 * region's threads past the count it keeps), not counted. */
static int all_einval(const char *values)
{
    int any = 0;
    for (const char *p = values;;) {
        char *end;
        double v = strtod(p, &end);
        if (end == p)
            break;
        if (v != LIKWID_EINVAL_VALUE)
            return 0;
        any = 1;
        p = end;
    }
    return any;
}

/* The marker file as the collector reads it: the tag and group of each
 * region from the file itself (LIKWID's reader cuts tags: at 99 bytes in
 * 5.2, 139 in 5.5, and takes the last '-' of what it kept for the group),
 * and a copy for LIKWID's reader whose region lines carry short tags
 * ("r<id>") and which lacks the value lines of lost threads. */
typedef struct region_desc {
    const char *tag;        /* into the file's buffer */
    size_t tag_len;
    long long group;
    long long lines;        /* value lines kept */
    int described;
} region_desc;

typedef struct marker {
    char *buf;
    size_t len;
    long long nregions;
    region_desc *reg;
    size_t lost_lines;      /* value lines of all -EINVAL */
    char copy_path[64];     /* /proc/self/fd/N of the copy (unlinked) */
} marker;

/* Refuses the files LIKWID's reader would overflow on: too many events or
 * too long a value line, region ids outside the header's count, more value
 * lines for a region than the header has threads. Own code, no LIKWID. */
static void prepare(const char *path, marker *m)
{
    int rc = sl_read_file(path, 1u << 30, &m->buf, &m->len);
    if (rc < 0)
        die("cannot read %s: %s", path, strerror(-rc));
    char tmpl[] = "/tmp/scope-likwid-collect.XXXXXX";
    const char *tmpdir = getenv("TMPDIR");
    char *tpath = NULL;
    if (tmpdir && *tmpdir && asprintf(&tpath, "%s/scope-likwid-collect.XXXXXX", tmpdir) < 0)
        die("out of memory");
    int fd = mkstemp(tpath ? tpath : tmpl);
    if (fd < 0)
        die("cannot create the copy of %s for LIKWID's reader in %s: %s", path,
            tpath ? tmpdir : "/tmp", strerror(errno));
    unlink(tpath ? tpath : tmpl); /* LIKWID reads it through /proc: nothing is left behind */
    free(tpath);
    snprintf(m->copy_path, sizeof m->copy_path, "/proc/self/fd/%d", fd);
    FILE *copy = fdopen(fd, "w");
    if (!copy)
        die("out of memory");

    const char *buf = m->buf;
    size_t len = m->len;
    long long threads = -1, groups = -1;
    size_t lineno = 0;
    for (size_t pos = 0; pos < len;) {
        const char *p = buf + pos;
        const char *nl = memchr(p, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - p) : len - pos;
        pos += n + 1;
        lineno++;
        if (lineno == 1) {
            char head[128];
            snprintf(head, sizeof head, "%.*s", (int)(n < 127 ? n : 127), p);
            if (sscanf(head, "%lld %lld %lld", &threads, &m->nregions, &groups) != 3 ||
                threads < 0 || m->nregions < 0 || groups < 0 || m->nregions > (long long)len)
                die("%s:1: bad header: expected '<threads> <regions> <groups>'", path);
            m->reg = calloc((size_t)m->nregions + 1, sizeof *m->reg);
            if (!m->reg)
                die("out of memory");
            fprintf(copy, "%.*s\n", (int)n, p);
            continue;
        }
        if (n == 0)
            continue;
        const char *colon = memchr(p, ':', n);
        if (colon) {
            char *end;
            errno = 0;
            long long id = strtoll(p, &end, 10);
            if (end != colon || errno || id < 0 || id >= m->nregions)
                die("%s:%zu: region id outside 0..%lld: expected a region line of the header's "
                    "regions", path, lineno, m->nregions - 1);
            /* the tag runs from the first ':' to the last '-' */
            const char *tag = colon + 1;
            const char *dash = memrchr(tag, '-', (size_t)(p + n - tag));
            long long gid = -1;
            if (dash) {
                errno = 0;
                gid = strtoll(dash + 1, &end, 10);
                if (end != p + n || end == dash + 1 || errno || gid < 0)
                    dash = NULL;
            }
            if (!dash)
                die("%s:%zu: no '-<group>' at the end: expected '<id>:<tag>-<group>'", path,
                    lineno);
            region_desc *r = &m->reg[id];
            if (r->described)
                die("%s:%zu: region %lld described twice: expected one line per region", path,
                    lineno, id);
            *r = (region_desc){.tag = tag, .tag_len = (size_t)(dash - tag), .group = gid,
                               .described = 1};
            fprintf(copy, "%lld:r%lld-%lld\n", id, id, gid);
            continue;
        }
        if (n > MAX_LINE)
            die("%s:%zu: line of %zu bytes: expected at most %d (LIKWID's reader would split it)",
                path, lineno, n, MAX_LINE);
        char line[MAX_LINE + 1];
        memcpy(line, p, n);
        line[n] = '\0';
        long long id = -1, gid, cpu;
        size_t rest;
        size_t tokens = count_tokens(line, n, &rest);
        if (sscanf(line, "%lld %lld %lld", &id, &gid, &cpu) != 3 || id < 0 ||
            id >= m->nregions || tokens < 6)
            die("%s:%zu: bad value line: expected '<region> <group> <cpu> <count> <time> "
                "<nevents> values' with a region id below %lld", path, lineno, m->nregions);
        if (tokens - 6 > MAX_EVENTS_PER_LINE)
            die("%s:%zu: %zu events on one line: expected at most %d (LIKWID's reader would "
                "overflow)", path, lineno, tokens - 6, MAX_EVENTS_PER_LINE);
        if (n - rest > MAX_VALUES_BYTES)
            die("%s:%zu: %zu bytes of event values: expected at most %d (LIKWID's reader would "
                "overflow)", path, lineno, n - rest, MAX_VALUES_BYTES);
        if (all_einval(line + rest)) {
            m->lost_lines++;
            continue;
        }
        if (cpu >= 0 && ++m->reg[id].lines > threads)
            die("%s:%zu: more value lines for region %lld than the header's %lld threads: "
                "expected at most one per thread", path, lineno, id, threads);
        fprintf(copy, "%s\n", line);
    }
    if (lineno == 0)
        die("%s: empty file: expected a LIKWID marker file", path);
    for (long long id = 0; id < m->nregions; id++)
        if (!m->reg[id].described)
            die("%s: region %lld has no region line: expected '%lld:<tag>-<group>'", path, id, id);
    if (fflush(copy) != 0)
        die("cannot write the copy of %s for LIKWID's reader: %s", path, strerror(errno));
    /* the stream stays open: its descriptor is the copy's only name */
    if (access(m->copy_path, R_OK) != 0)
        die("cannot reach the copy of %s for LIKWID's reader at %s: %s (expected /proc "
            "mounted)", path, m->copy_path, strerror(errno));
    if (m->lost_lines)
        fprintf(stderr, "scope-likwid-collect: note: %zu value lines of %s hold only -22 "
                "(LIKWID 5.5's -EINVAL: values it lost): those threads have no counters\n",
                m->lost_lines, path);
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* A value LIKWID's getters return for a thread it lists is either a count
 * or its -EINVAL (-22.0: the thread or event is outside what it kept). */
static double checked(double v, const char *what, int r, int t)
{
    if (v == LIKWID_EINVAL_VALUE)
        die("%s(%d, thread %d) returned -22 (LIKWID's -EINVAL) for a thread it listed: "
            "expected a value", what, r, t);
    return v;
}

/* Fills one region from LIKWID's getters; tag and group from the file. */
static void read_region(sl_likwid *lw, const marker *mk, int r, int ngroups)
{
    const region_desc *d = &mk->reg[r];
    int gid = lw_api.perfmon_getGroupOfRegion(r);
    if (gid < 0 || gid >= ngroups || gid != d->group)
        die("region %d: LIKWID gives group %d: expected %lld (the file's), one of the %d event "
            "sets of LIKWID_EVENTS", r, gid, d->group, ngroups);
    int nthreads = lw_api.perfmon_getThreadsOfRegion(r);
    if (nthreads < 0)
        die("perfmon_getThreadsOfRegion(%d) failed (%d)", r, nthreads);
    int group_events = lw_api.perfmon_getNumberOfEvents(gid);
    if (group_events < 0)
        die("perfmon_getNumberOfEvents(%d) failed (%d)", gid, group_events);
    /* a region without value lines has no event count of its own */
    int nevents = nthreads ? lw_api.perfmon_getEventsOfRegion(r) : group_events;
    if (nevents < 0 || nevents > group_events)
        die("region %d has %d events: expected 0..%d (its group's events)", r, nevents,
            group_events);
    int nmetrics = lw_api.perfmon_getNumberOfMetrics(gid);
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
        int got = lw_api.perfmon_getCpulistOfRegion(r, nthreads, cpus);
        if (got != nthreads)
            die("perfmon_getCpulistOfRegion(%d) gave %d CPUs: expected %d", r, got, nthreads);
    }
    size_t T = 0;
    for (int t = 0; t < nthreads; t++)
        if (lw_api.perfmon_getCountOfRegion(r, t) > 0)
            keep[T++] = t;
    sl_region *reg = sl_likwid_add(lw, d->tag, d->tag_len, gid,
                                   or_empty(lw_api.perfmon_getGroupName(gid)), SL_SOURCE_FULL_API,
                                   T, (size_t)nevents, (size_t)nmetrics, 1);
    if (!reg)
        die("out of memory");
    for (size_t k = 0; k < T; k++) {
        reg->cpus[k] = cpus[keep[k]];
        reg->times[k] = checked(lw_api.perfmon_getTimeOfRegion(r, keep[k]),
                                "perfmon_getTimeOfRegion", r, keep[k]);
        reg->call_counts[k] = lw_api.perfmon_getCountOfRegion(r, keep[k]);
    }
    for (int e = 0; e < nevents; e++) {
        if (sl_set_string(&reg->event_names[e], or_empty(lw_api.perfmon_getEventName(gid, e))) < 0 ||
            sl_set_string(&reg->counter_names[e],
                          or_empty(lw_api.perfmon_getCounterName(gid, e))) < 0)
            die("out of memory");
        for (size_t k = 0; k < T; k++)
            reg->events[(size_t)e * T + k] =
                checked(lw_api.perfmon_getResultOfRegionThread(r, e, keep[k]),
                        "perfmon_getResultOfRegionThread", r, keep[k]);
    }
    for (int m = 0; m < nmetrics; m++) {
        if (sl_set_string(&reg->metric_names[m], or_empty(lw_api.perfmon_getMetricName(gid, m))) < 0)
            die("out of memory");
        for (size_t k = 0; k < T; k++)
            reg->metrics[(size_t)m * T + k] = lw_api.perfmon_getMetricOfRegionThread(r, m, keep[k]);
    }
    free(cpus);
    free(keep);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc == 4 || argc > 6)
        die("usage: scope-likwid-collect MARKERFILE [LIBLIKWID [CYCLE_HZ CPU_HZ [ACCESSD]]]");
    const char *path = argv[1];
    const char *mode = need_env("LIKWID_MODE");
    char *events = strdup(need_env("LIKWID_EVENTS"));
    const char *threads = need_env("LIKWID_THREADS");
    if (!events)
        die("out of memory");
    int ncpus, nsets;
    int *cpus = parse_cpus(threads, &ncpus);
    char **sets = split_sets(events, &nsets);
    marker mk = {0};
    uint64_t cycle_hz = argc >= 5 ? parse_hz("CYCLE_HZ", argv[3]) : 0;
    uint64_t cpu_hz = argc >= 5 ? parse_hz("CPU_HZ", argv[4]) : 0;
    prepare(path, &mk);
    void *lib = load_likwid(argc >= 3 && argv[2][0] ? argv[2] : NULL);
    if (sl_clock_bind(lib) == 0 && cycle_hz)
        sl_clock_give(cycle_hz, cpu_hz);
    sl_accessd_give(argc == 6 ? argv[5] : NULL);

    if (lw_api.init_configuration() != 0)
        die("init_configuration failed");
    lw_api.HPMmode(atoi(mode));
    if (lw_api.topology_init() != 0)
        die("topology_init failed");
    int rc = lw_api.perfmon_init(ncpus, cpus);
    if (rc < 0)
        die("perfmon_init failed (%d)", rc);
    for (int i = 0; i < nsets; i++) {
        rc = lw_api.perfmon_addEventSet(sets[i]);
        if (rc < 0)
            die("perfmon_addEventSet(%s) failed (%d)", sets[i], rc);
        if (rc != i)
            die("perfmon_addEventSet(%s) gave group %d: expected %d", sets[i], rc, i);
    }
    rc = lw_api.perfmon_readMarkerFile(mk.copy_path);
    if (rc < 0)
        die("perfmon_readMarkerFile(%s) failed (%d)", path, rc);
    int nregions = lw_api.perfmon_getNumberOfRegions();
    if (nregions < 0)
        die("perfmon_getNumberOfRegions failed (%d)", nregions);
    if (nregions != mk.nregions)
        die("LIKWID read %d regions of %s: expected %lld (its header's)", nregions, path,
            mk.nregions);

    check_clock(nregions);

    sl_likwid lw;
    sl_likwid_init(&lw);
    lw.source = SL_SOURCE_FULL_API;
    for (int r = 0; r < nregions; r++)
        read_region(&lw, &mk, r, nsets);
    if (sl_collect_groups(&lw, argc >= 3 && argv[2][0] ? argv[2] : NULL) < 0)
        die("out of memory");
    /* finalize only: destroyMarkerResults before it would free twice */
    lw_api.perfmon_finalize();

    rc = sl_wire_write_likwid(1, &lw);
    if (rc < 0)
        die("writing the answer failed: %s", strerror(-rc));
    sl_likwid_free(&lw);
    free(mk.reg);
    free(mk.buf);
    free(sets);
    free(events);
    free(cpus);
    return 0;
}
