/* The fallback path's group files, applied in the writer (write_groups.h). */
#include "write_groups.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <likwid.h>

#include "group_match.h"
#include "groupfile.h"

/* Where Debian's likwid installs its group files (perfgroups/<arch>/) */
#define SL_PERFGROUPS "/usr/share/likwid/perfgroups"

/* dlsym's void * as a function pointer (memcpy keeps -Wpedantic quiet) */
static void *sym(void *h, const char *name)
{
    return dlsym(h, name);
}
#define SL_FN(fp, h, name)                                                         \
    do {                                                                          \
        void *s_ = sym(h, name);                                                  \
        memcpy(&(fp), &s_, sizeof s_);                                            \
    } while (0)

/* LIKWID's name of this CPU's architecture (its perfgroups folder) and the
 * node's sockets and NUMA domains (num_sockets, num_numadomains), from the
 * LIKWID found at run time; NULL (node untouched) when there is none or it
 * does not know the CPU. The library stays loaded (the name is its
 * memory). */
static const char *likwid_node(sl_group_node *node)
{
    static const char *const sonames[] = {"liblikwid.so.5.2", "liblikwid.so.5", "liblikwid.so"};
    void *h = NULL;
    for (size_t i = 0; i < sizeof sonames / sizeof *sonames && !h; i++)
        h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return NULL;
    int (*topo_init)(void) = NULL, (*numa_init)(void) = NULL;
    CpuInfo_t (*info)(void) = NULL;
    CpuTopology_t (*topo)(void) = NULL;
    NumaTopology_t (*numa)(void) = NULL;
    SL_FN(topo_init, h, "topology_init");
    SL_FN(info, h, "get_cpuInfo");
    SL_FN(topo, h, "get_cpuTopology");
    SL_FN(numa_init, h, "numa_init");
    SL_FN(numa, h, "get_numaTopology");
    if (!topo_init || !info || topo_init() != 0)
        return NULL;
    CpuInfo_t c = info();
    CpuTopology_t t = topo ? topo() : NULL;
    if (t && t->numSockets)
        node->num_sockets = t->numSockets;
    NumaTopology_t n = numa_init && numa && numa_init() == 0 ? numa() : NULL;
    if (n && n->numberOfNodes)
        node->num_numadomains = n->numberOfNodes;
    return c && c->short_name && *c->short_name ? c->short_name : NULL;
}

/* LIKWID's cycle clock where the CPU states it (CPUID leaf 0x16, base
 * MHz: what LIKWID's timer uses when it exists); nan otherwise (LIKWID
 * measures it for a second: not done here). */
static double cycle_clock(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) >= 0x16) {
        __cpuid_count(0x16, 0, a, b, c, d);
        if (a & 0xffff)
            return (double)(a & 0xffff) * 1e6;
    }
#endif
    return NAN;
}

/* The custom event sets of LIKWID_EVENTS ("EVENT:COUNTER,..."): each
 * matched against the group files (core/likwid/group_match.h) for its marker-file
 * regions; what was found goes into the status. 0 or -ENOMEM. */
static int match_custom(sl_run *run, const char *dir, const char *arch, const char *events,
                        const sl_group_node *node, sl_diag *d)
{
    char *sets = strdup(events);
    char *status = malloc(4096);
    int rc = sets && status ? 0 : -ENOMEM;
    char *save = NULL;
    int64_t gid = 0;
    for (char *set = sets ? strtok_r(sets, "|", &save) : NULL; set && !rc;
         set = strtok_r(NULL, "|", &save), gid++) {
        if (!strchr(set, ':'))
            continue;
        sl_group_match m;
        size_t before = d->count;
        rc = sl_group_match_set(dir, arch, set, &m, d);
        if (rc == 0) {
            rc = sl_group_match_apply(&m, arch, node, &run->likwid, gid, SL_SOURCE_MARKER_FILE,
                                      status, 4096);
            sl_group_match_free(&m);
        } else if (rc != -ENOMEM) {
            snprintf(status, 4096, "group %lld: custom event set, not matched against group "
                     "files: %s", (long long)gid,
                     d->kept > before ? d->lines[before] : "no reason given");
            rc = 0;
        }
        if (rc == 0)
            rc = sl_status_append(run, status);
    }
    free(status);
    free(sets);
    return rc;
}

int sl_write_groups(sl_run *run, sl_diag *d)
{
    int marker = 0;
    for (size_t i = 0; i < run->likwid.nregions; i++)
        marker |= run->likwid.regions[i].source == SL_SOURCE_MARKER_FILE &&
                  !run->likwid.regions[i].has_names;
    const char *events = NULL;
    for (size_t i = 0; i < run->nenv; i++)
        if (!strcmp(run->env[i].name, "LIKWID_EVENTS"))
            events = run->env[i].value;
    if (!marker || !events || !*events)
        return 0;
    sl_group_node node = {.clock_hz = cycle_clock(), .num_sockets = NAN,
                          .num_numadomains = NAN};
    if (isnan(node.clock_hz) && run->tsc_hz > 0) /* recorded at Init (CPUID 0x15) */
        node.clock_hz = (double)run->tsc_hz;
    const char *arch = likwid_node(&node);
    const char *given = getenv("SCOPE_LIKWID_ARCH");
    if (given && *given)
        arch = given;
    if (!arch)
        return sl_status_append(run, "no group file applied: the CPU architecture is unknown "
                               "(LIKWID's topology does not name this CPU; "
                               "SCOPE_LIKWID_ARCH=<perfgroups folder> gives it)");
    const char *dir = getenv("SCOPE_LIKWID_PERFGROUPS");
    if (!dir || !*dir)
        dir = SL_PERFGROUPS;
    size_t left = 0;
    int rc = sl_group_apply_run(run, dir, arch, events, "|", &node, 0, &left, d);
    if (rc != -ENOMEM)
        rc = match_custom(run, dir, arch, events, &node, d);
    return rc == -ENOMEM ? rc : 0;
}
