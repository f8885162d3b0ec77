/* Simulated LIKWID: the event sets it knows (shared by the marker side and
 * the read-back side, so both agree on event counts and names). */
#ifndef SIM_GROUPS_H
#define SIM_GROUPS_H

#include <stddef.h>

typedef struct sim_group {
    char *name;             /* "FLOPS_DP", "Custom" for EV:CTR,... strings */
    int nevents;
    char **event_names;     /* [nevents] */
    char **counter_names;   /* [nevents] */
    int nmetrics;
    const char *const *metric_names;
    int kind;               /* which metric formulas apply */
} sim_group;

/* Parses one entry of LIKWID_EVENTS: a known group (FLOPS_DP, BRANCH, MEM,
 * CLOCK: metrics with inverseClock),
 * SIM<n> (n events, for tests of wide lines), a custom "EV:CTR,EV:CTR" list,
 * or any other name (4 generic events). 0 or -ENOMEM / -EINVAL. */
int sim_group_parse(const char *set, sim_group *g);
void sim_group_free(sim_group *g);

/* Metric m of group g for one thread's event values and time, with
 * LIKWID's inverseClock. */
double sim_metric(const sim_group *g, int m, const double *events, double time,
                  double inverse_clock);

/* sim_timer.c: LIKWID's timer started, as perfmon_init and (through it)
 * likwid_markerInit start it; and inverseClock as a metric reads it (the
 * timer started first, as LIKWID does). */
void sim_timer_start(void);
double sim_inverse_clock(void);

/* sim_marker.c: events of group in the marker state (-EINVAL when the
 * marker API is not counting); perfmon_getNumberOfEvents in the
 * application's process, where perfmon_init was never called. */
int sim_marker_nevents(int group);

#endif
