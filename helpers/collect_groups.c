/* Custom event sets recognised in the collector (collect_groups.h). */
#include "collect_groups.h"

#include <dlfcn.h>
#include <errno.h>
#include <likwid.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group_match.h"

/* dlsym's void * as a function pointer (memcpy keeps -Wpedantic quiet) */
#define SL_FN(fp, h, name)                                                         \
    do {                                                                          \
        void *s_ = dlsym(h, name);                                                \
        memcpy(&(fp), &s_, sizeof s_);                                            \
    } while (0)

/* The architecture's perfgroups folder name, LIKWID's group path and the
 * node from the loaded LIKWID; 0, or -1 when it cannot tell (*why). */
static int likwid_facts(const char *liblikwid, const char **arch, const char **dir,
                        sl_group_node *node, const char **why)
{
    void *h = dlopen(liblikwid ? liblikwid : "liblikwid.so", RTLD_NOW | RTLD_NOLOAD);
    Configuration_t (*config)(void) = NULL;
    CpuInfo_t (*info)(void) = NULL;
    CpuTopology_t (*topo)(void) = NULL;
    NumaTopology_t (*numa)(void) = NULL;
    int (*numa_init)(void) = NULL;
    if (h) {
        SL_FN(config, h, "get_configuration");
        SL_FN(info, h, "get_cpuInfo");
        SL_FN(topo, h, "get_cpuTopology");
        SL_FN(numa, h, "get_numaTopology");
        SL_FN(numa_init, h, "numa_init");
    }
    Configuration_t cf = config ? config() : NULL;
    CpuInfo_t ci = info ? info() : NULL;
    if (!cf || !cf->groupPath || !*cf->groupPath || !ci || !ci->short_name || !*ci->short_name) {
        *why = "LIKWID does not name the CPU's architecture or its group path";
        return -1;
    }
    *arch = ci->short_name;
    *dir = cf->groupPath;
    /* the collector's timer_getCycleClock (collect_clock.c): the clock
     * LIKWID's own metrics use, the application's when it was given */
    uint64_t hz = timer_getCycleClock();
    node->clock_hz = hz ? (double)hz : NAN;
    CpuTopology_t t = topo ? topo() : NULL;
    node->num_sockets = t && t->numSockets ? t->numSockets : NAN;
    NumaTopology_t n = numa_init && numa && numa_init() == 0 ? numa() : NULL;
    node->num_numadomains = n && n->numberOfNodes ? n->numberOfNodes : NAN;
    return 0;
}

/* The events LIKWID counted for group gid, as a set ("EVENT:COUNTER,..."):
 * the names of its first region (LIKWID adds the fixed counters a custom
 * set lacks on Intel CPUs), each counter with the options the set gave it
 * (LIKWID names a counter without them); the set itself when no region has
 * names. NULL on ENOMEM. */
static char *counted(const sl_likwid *lw, int64_t gid, const char *set)
{
    const sl_region *r = NULL;
    for (size_t i = 0; i < lw->nregions && !r; i++)
        if (lw->regions[i].group_id == gid && lw->regions[i].has_names && lw->regions[i].nevents)
            r = &lw->regions[i];
    if (!r)
        return strdup(set);
    size_t len = 1;
    for (size_t e = 0; e < r->nevents; e++)
        len += strlen(r->event_names[e]) + strlen(r->counter_names[e]) + 2;
    char *out = malloc(len + strlen(set));
    if (!out)
        return NULL;
    out[0] = '\0';
    for (size_t e = 0; e < r->nevents; e++) {
        const char *ev = r->event_names[e], *ctr = r->counter_names[e], *opts = "";
        size_t ne = strlen(ev), nc = strlen(ctr);
        /* "EV:CTR:OPTIONS" in the set: the options, the ':' before them kept */
        for (const char *p = set; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
            if (!strncmp(p, ev, ne) && p[ne] == ':' && !strncmp(p + ne + 1, ctr, nc) &&
                p[ne + 1 + nc] == ':') {
                opts = p + ne + 1 + nc;
                break;
            }
        size_t no = strcspn(opts, ",");
        snprintf(out + strlen(out), len + strlen(set) - strlen(out), "%s%s:%s%.*s", e ? "," : "",
                 ev, ctr, (int)no, opts);
    }
    return out;
}

int sl_collect_groups(sl_likwid *lw, const char *liblikwid)
{
    const char *env = getenv("LIKWID_EVENTS");
    char *sets = env ? strdup(env) : NULL;
    if (!sets)
        return env ? -ENOMEM : 0;
    const char *arch = NULL, *dir = NULL, *why = NULL;
    sl_group_node node;
    int known = -1, rc = 0;
    char *save = NULL;
    int64_t gid = 0;
    for (char *set = strtok_r(sets, "|", &save); set && !rc;
         set = strtok_r(NULL, "|", &save), gid++) {
        if (!strchr(set, ':'))
            continue;   /* a group's name: LIKWID's own names and metrics */
        if (known < 0)
            known = likwid_facts(liblikwid, &arch, &dir, &node, &why) == 0;
        if (!known) {
            fprintf(stderr, "scope-likwid-collect: note: custom event sets not matched against "
                    "group files: %s\n", why);
            break;
        }
        sl_diag d;
        sl_diag_init(&d);
        sl_group_match m;
        char *status = malloc(4096);
        char *events = counted(lw, gid, set);
        rc = events && status ? sl_group_match_set(dir, arch, events, &m, &d) : -ENOMEM;
        free(events);
        if (rc == 0) {
            rc = sl_group_match_apply(&m, arch, &node, lw, gid, SL_SOURCE_FULL_API, status,
                                      4096);
            sl_group_match_free(&m);
            if (rc == 0)
                fprintf(stderr, "scope-likwid-collect: note: %s\n", status);
        } else if (rc != -ENOMEM) {
            fprintf(stderr, "scope-likwid-collect: note: group %lld: custom event set, not "
                    "matched against group files: %s\n", (long long)gid,
                    d.kept ? d.lines[0] : "no reason given");
            rc = 0;
        }
        sl_diag_free(&d);
        free(status);
    }
    free(sets);
    return rc;
}
