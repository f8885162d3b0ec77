/* Simulated LIKWID: deterministic event sets, names and metrics. */
#include "sim_groups.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KIND_PLAIN, KIND_FLOPS, KIND_BRANCH, KIND_MEM, KIND_CLOCK };

static const char *const fixed_ev[] = {"INSTR_RETIRED_ANY", "CPU_CLK_UNHALTED_CORE",
                                       "CPU_CLK_UNHALTED_REF"};
static const char *const fixed_ctr[] = {"FIXC0", "FIXC1", "FIXC2"};

static const char *const flops_ev[] = {"FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE",
                                       "FP_ARITH_INST_RETIRED_SCALAR_DOUBLE",
                                       "FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE"};
static const char *const flops_ctr[] = {"PMC0", "PMC1", "PMC2"};
static const char *const branch_ev[] = {"BR_INST_RETIRED_ALL_BRANCHES",
                                        "BR_MISP_RETIRED_ALL_BRANCHES"};
static const char *const branch_ctr[] = {"PMC0", "PMC1"};
/* a repeated event name on two counters, as real memory groups have */
static const char *const mem_ev[] = {"CAS_COUNT_RD", "CAS_COUNT_RD", "CAS_COUNT_WR",
                                     "CAS_COUNT_WR"};
static const char *const mem_ctr[] = {"MBOX0C0", "MBOX1C0", "MBOX0C1", "MBOX1C1"};

static const char *const m_plain[] = {"Runtime (RDTSC) [s]"};
static const char *const m_flops[] = {"Runtime (RDTSC) [s]", "CPI", "DP [MFLOP/s]"};
static const char *const m_branch[] = {"Runtime (RDTSC) [s]", "CPI", "Branch rate"};
static const char *const m_mem[] = {"Runtime (RDTSC) [s]", "CPI",
                                    "Memory bandwidth [MBytes/s]"};
/* LIKWID's CLOCK group's: FIXC1*inverseClock, 1.E-06*(FIXC1/FIXC2)/inverseClock */
static const char *const m_clock[] = {"Runtime (RDTSC) [s]", "CPI", "Runtime unhalted [s]",
                                      "Clock [MHz]"};

static int alloc_names(sim_group *g, int n)
{
    g->nevents = n;
    g->event_names = calloc((size_t)n + 1, sizeof(char *));
    g->counter_names = calloc((size_t)n + 1, sizeof(char *));
    return g->event_names && g->counter_names ? 0 : -ENOMEM;
}

static int set_pair(sim_group *g, int i, const char *ev, size_t evl, const char *ctr, size_t cl)
{
    g->event_names[i] = strndup(ev, evl);
    g->counter_names[i] = strndup(ctr, cl);
    return g->event_names[i] && g->counter_names[i] ? 0 : -ENOMEM;
}

static int named(sim_group *g, const char *name, int kind, const char *const *ev,
                 const char *const *ctr, int n, const char *const *metrics, int nm)
{
    g->name = strdup(name);
    g->kind = kind;
    g->metric_names = metrics;
    g->nmetrics = nm;
    int with_fixed = kind != KIND_PLAIN;
    if (!g->name || alloc_names(g, n + (with_fixed ? 3 : 0)) < 0)
        return -ENOMEM;
    int k = 0;
    for (int i = 0; with_fixed && i < 3; i++, k++)
        if (set_pair(g, k, fixed_ev[i], strlen(fixed_ev[i]), fixed_ctr[i], strlen(fixed_ctr[i])))
            return -ENOMEM;
    for (int i = 0; i < n; i++, k++)
        if (set_pair(g, k, ev[i], strlen(ev[i]), ctr[i], strlen(ctr[i])))
            return -ENOMEM;
    return 0;
}

int sim_group_parse(const char *set, sim_group *g)
{
    memset(g, 0, sizeof *g);
    if (!set || !*set)
        return -EINVAL;
    if (strcmp(set, "FLOPS_DP") == 0)
        return named(g, set, KIND_FLOPS, flops_ev, flops_ctr, 3, m_flops, 3);
    if (strcmp(set, "BRANCH") == 0)
        return named(g, set, KIND_BRANCH, branch_ev, branch_ctr, 2, m_branch, 3);
    if (strcmp(set, "MEM") == 0)
        return named(g, set, KIND_MEM, mem_ev, mem_ctr, 4, m_mem, 3);
    if (strcmp(set, "CLOCK") == 0)
        return named(g, set, KIND_CLOCK, NULL, NULL, 0, m_clock, 4);
    g->metric_names = m_plain;
    g->nmetrics = 1;
    g->kind = KIND_PLAIN;
    if (strchr(set, ':')) {
        /* custom event string: EV:CTR[:OPTS],EV:CTR,... */
        int n = 1;
        for (const char *p = set; *p; p++)
            n += *p == ',';
        g->name = strdup("Custom");
        if (!g->name || alloc_names(g, n) < 0)
            return -ENOMEM;
        const char *p = set;
        for (int i = 0; i < n; i++) {
            const char *end = strchr(p, ',');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            const char *colon = memchr(p, ':', len);
            if (!colon || colon == p)
                return -EINVAL;
            const char *c2 = memchr(colon + 1, ':', len - (size_t)(colon + 1 - p));
            size_t cl = (size_t)((c2 ? c2 : p + len) - (colon + 1));
            if (cl == 0 || set_pair(g, i, p, (size_t)(colon - p), colon + 1, cl))
                return -EINVAL;
            p = end ? end + 1 : p + len;
        }
        return 0;
    }
    int n = 4;
    if (strncmp(set, "SIM", 3) == 0 && set[3] >= '0' && set[3] <= '9') {
        n = atoi(set + 3);
        if (n <= 0 || n > 10000)
            return -EINVAL;
    }
    g->name = strdup(set);
    if (!g->name || alloc_names(g, n) < 0)
        return -ENOMEM;
    for (int i = 0; i < n; i++) {
        char ev[32], ctr[32];
        int el = snprintf(ev, sizeof ev, "SIM_EVENT_%d", i);
        int cl = snprintf(ctr, sizeof ctr, "PMC%d", i);
        if (set_pair(g, i, ev, (size_t)el, ctr, (size_t)cl))
            return -ENOMEM;
    }
    return 0;
}

void sim_group_free(sim_group *g)
{
    for (int i = 0; i < g->nevents; i++) {
        if (g->event_names)
            free(g->event_names[i]);
        if (g->counter_names)
            free(g->counter_names[i]);
    }
    free(g->event_names);
    free(g->counter_names);
    free(g->name);
    memset(g, 0, sizeof *g);
}

double sim_metric(const sim_group *g, int m, const double *ev, double time, double inverse_clock)
{
    if (m == 0)
        return time;
    if (g->kind == KIND_PLAIN)
        return 0.0;
    if (m == 1)
        return ev[0] != 0.0 ? ev[1] / ev[0] : 0.0;
    switch (g->kind) {
    case KIND_FLOPS:
        return time > 0 ? 1e-6 * (2.0 * ev[3] + ev[4] + 4.0 * ev[5]) / time : 0.0;
    case KIND_BRANCH:
        return ev[0] != 0.0 ? ev[3] / ev[0] : 0.0;
    case KIND_MEM:
        return time > 0 ? 1e-6 * 64.0 * (ev[3] + ev[4] + ev[5] + ev[6]) / time : 0.0;
    case KIND_CLOCK:
        if (m == 2)
            return ev[1] * inverse_clock;
        return ev[2] != 0.0 ? 1e-6 * (ev[1] / ev[2]) / inverse_clock : 0.0;
    default:
        return 0.0;
    }
}
