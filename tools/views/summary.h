/* Internal header: not installed. `scope-likwid show --summary`: one row
 * per region over every rank and thread of one or more files (min, mean,
 * max of a rank's time in the region and the imbalance, as LIKWID's STAT
 * table and Caliper give them), then per LIKWID group, region and metric
 * the min, mean, max and (where a sum means something) sum over HWThreads. */
#ifndef SL_SUMMARY_H
#define SL_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "h5read.h"
#include "metric_sum.h"
#include "show_filter.h"

/* One region's time over the ranks that entered it. */
typedef struct sl_sum_time {
    char *tag;                  /* exact bytes */
    size_t tag_len;
    size_t ranks, threads;
    int64_t calls;              /* saturating */
    double min_s, max_s, total_s; /* over ranks: a rank's time summed over its threads */
} sl_sum_time;

/* One metric of one (group, region) over the HWThreads that have a value. */
typedef struct sl_sum_metric {
    char *group;                /* the group's name, else "group <id>" */
    char *tag;
    size_t tag_len;
    char *metric;
    size_t ranks, hwthreads;
    int64_t calls;
    double min, max, sum;
    size_t group_seq, metric_seq; /* first appearance: the output's order */
    size_t region_seq;          /* the region's place in the times */
    size_t last_run;            /* the run that counted last in ranks (+1) */
} sl_sum_metric;

typedef struct sl_summary {
    size_t nruns;               /* ranks selected */
    size_t ntimes, cap_times;
    sl_sum_time *times;         /* costliest first after sl_summary_build */
    size_t nmetrics, cap_metrics;
    sl_sum_metric *metrics;     /* by group, the times' region order, metric */
} sl_summary;

/* The summary of the runs of sets[0..nsets) that flt selects (--rank,
 * --region, --group, --metric). 0 or -ENOMEM. */
int sl_summary_build(const sl_runset *sets, size_t nsets, const sl_show_filter *flt,
                     sl_summary *s);
void sl_summary_free(sl_summary *s);

/* mean and imbalance ((max - mean) / max * 100; 0 when max is 0) */
double sl_sum_time_mean(const sl_sum_time *t);
double sl_sum_time_imbalance(const sl_sum_time *t);

/* The summary as tables (a region table, then one per group) or as CSV
 * (header region,ranks,threads,calls,min_s,mean_s,max_s,imbalance_pct,
 * group,metric,min,mean,max,sum). 0 or -ENOMEM. */
int sl_summary_table(FILE *f, const sl_summary *s);
int sl_summary_csv(FILE *f, const sl_summary *s);

#endif
