/* `scope-likwid show --summary`: regions over ranks and threads, LIKWID
 * metrics over HWThreads (summary.h). */
#include "summary.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_json.h"
#include "metric_sum.h"
#include "names.h"
#include "region_order.h"
#include "sat.h"
#include "show_rows.h"
#include "table.h"
#include "vec.h"

static int same_tag(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && !memcmp(a, b, alen);
}

static char *copy_bytes(const char *s, size_t len)
{
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

/* The entry of tag, added when new; NULL when out of memory. */
static sl_sum_time *time_entry(sl_summary *s, const char *tag, size_t len)
{
    for (size_t i = 0; i < s->ntimes; i++)
        if (same_tag(s->times[i].tag, s->times[i].tag_len, tag, len))
            return &s->times[i];
    sl_sum_time t = {.tag = copy_bytes(tag, len), .tag_len = len};
    if (!t.tag || SL_VEC_PUSH(s->times, s->ntimes, s->cap_times, t) < 0) {
        free(t.tag);
        return NULL;
    }
    return &s->times[s->ntimes - 1];
}

static int add_time(sl_summary *s, const char *tag, size_t len, size_t threads, int64_t calls,
                    double secs)
{
    sl_sum_time *t = time_entry(s, tag, len);
    if (!t)
        return -ENOMEM;
    t->min_s = t->ranks ? fmin(t->min_s, secs) : secs;
    t->max_s = t->ranks ? fmax(t->max_s, secs) : secs;
    t->total_s += secs;
    t->ranks++;
    t->threads += threads;
    t->calls = sl_add_sat(t->calls, calls);
    return 0;
}

/* A rank's time per region: the shim's timing (total over its threads); a
 * run without timing (convert of a marker file) from LIKWID's region time,
 * the first region of each tag. */
static int add_run_times(sl_summary *s, const sl_run *run, const sl_show_filter *flt)
{
    const sl_timing *tm = &run->timing;
    for (size_t i = 0; i < tm->nregions; i++) {
        const sl_timing_region *r = &tm->regions[i];
        if (!sl_filter_region(flt, r->tag, r->tag_len))
            continue;
        int64_t calls = 0;
        for (size_t t = 0; t < r->nthreads; t++)
            calls = sl_add_sat(calls, r->call_counts[t]);
        if (add_time(s, r->tag, r->tag_len, r->nthreads, calls, (double)sl_timing_total(r) / 1e9))
            return -ENOMEM;
    }
    if (tm->nregions)
        return 0;
    const sl_likwid *lw = &run->likwid;
    for (size_t i = 0; i < lw->nregions; i++) {
        const sl_region *r = &lw->regions[i];
        int first = 1;
        for (size_t k = 0; k < i && first; k++)
            first = !same_tag(lw->regions[k].tag, lw->regions[k].tag_len, r->tag, r->tag_len);
        if (!first || !sl_filter_region(flt, r->tag, r->tag_len))
            continue;
        int64_t calls = 0;
        for (size_t t = 0; t < r->nthreads; t++)
            calls = sl_add_sat(calls, r->call_counts[t]);
        if (add_time(s, r->tag, r->tag_len, r->nthreads, calls, sl_region_cost(r)))
            return -ENOMEM;
    }
    return 0;
}

static char *group_key(const sl_region *r)
{
    if (r->group_name && r->group_name[0])
        return copy_bytes(r->group_name, strlen(r->group_name));
    char buf[48];
    snprintf(buf, sizeof buf, "group %lld", (long long)r->group_id);
    return copy_bytes(buf, strlen(buf));
}

/* The entry of (group, tag, metric), added when new; NULL when out of memory. */
static sl_sum_metric *metric_entry(sl_summary *s, const char *group, const sl_region *r,
                                   const char *metric)
{
    size_t group_seq = s->nmetrics, metric_seq = s->nmetrics;
    for (size_t i = 0; i < s->nmetrics; i++) {
        sl_sum_metric *m = &s->metrics[i];
        if (strcmp(m->group, group))
            continue;
        if (group_seq == s->nmetrics)
            group_seq = m->group_seq;
        if (!strcmp(m->metric, metric)) {
            if (metric_seq == s->nmetrics)
                metric_seq = m->metric_seq;
            if (same_tag(m->tag, m->tag_len, r->tag, r->tag_len))
                return m;
        }
    }
    sl_sum_metric m = {.group = copy_bytes(group, strlen(group)),
                       .tag = copy_bytes(r->tag, r->tag_len),
                       .tag_len = r->tag_len,
                       .metric = copy_bytes(metric, strlen(metric)),
                       .group_seq = group_seq,
                       .metric_seq = metric_seq};
    if (!m.group || !m.tag || !m.metric || SL_VEC_PUSH(s->metrics, s->nmetrics, s->cap_metrics, m) < 0) {
        free(m.group);
        free(m.tag);
        free(m.metric);
        return NULL;
    }
    return &s->metrics[s->nmetrics - 1];
}

static int add_run_metrics(sl_summary *s, const sl_run *run, size_t run_no,
                           const sl_show_filter *flt)
{
    const sl_likwid *lw = &run->likwid;
    for (size_t i = 0; i < lw->nregions; i++) {
        const sl_region *r = &lw->regions[i];
        if (!sl_filter_region(flt, r->tag, r->tag_len) || !sl_filter_group(flt, r))
            continue;
        char *group = group_key(r);
        if (!group)
            return -ENOMEM;
        for (size_t k = 0; k < r->nmetrics; k++) {
            const char *name = sl_show_metric_name(r, k);
            if (!sl_filter_row(flt, name))
                continue;
            sl_sum_metric *m = metric_entry(s, group, r, name);
            if (!m) {
                free(group);
                return -ENOMEM;
            }
            const double *v = r->metrics + k * r->nthreads;
            for (size_t t = 0; t < r->nthreads; t++) {
                if (isnan(v[t]))
                    continue;
                m->min = m->hwthreads ? fmin(m->min, v[t]) : v[t];
                m->max = m->hwthreads ? fmax(m->max, v[t]) : v[t];
                m->sum += v[t];
                m->hwthreads++;
                m->calls = sl_add_sat(m->calls, r->call_counts[t]);
            }
            if (m->last_run != run_no + 1) {
                m->last_run = run_no + 1;
                m->ranks++;
            }
        }
        free(group);
    }
    return 0;
}

static int time_cmp(const void *a, const void *b)
{
    const sl_sum_time *x = a, *y = b;
    if (x->total_s != y->total_s)
        return x->total_s > y->total_s ? -1 : 1;
    size_t n = x->tag_len < y->tag_len ? x->tag_len : y->tag_len;
    int c = memcmp(x->tag, y->tag, n);
    return c ? c : (x->tag_len > y->tag_len) - (x->tag_len < y->tag_len);
}

/* The region's place in the times (a region LIKWID has and the timing
 * does not: after them). */
static size_t region_place(const sl_summary *s, const sl_sum_metric *m)
{
    for (size_t i = 0; i < s->ntimes; i++)
        if (same_tag(s->times[i].tag, s->times[i].tag_len, m->tag, m->tag_len))
            return i;
    return s->ntimes;
}

/* The metrics' order: group, region (region_seq), metric. */
static int metric_cmp(const void *a, const void *b)
{
    const sl_sum_metric *x = a, *y = b;
    if (x->group_seq != y->group_seq)
        return x->group_seq < y->group_seq ? -1 : 1;
    if (x->region_seq != y->region_seq)
        return x->region_seq < y->region_seq ? -1 : 1;
    if (x->metric_seq != y->metric_seq)
        return x->metric_seq < y->metric_seq ? -1 : 1;
    return time_cmp(&(sl_sum_time){.tag = x->tag, .tag_len = x->tag_len},
                    &(sl_sum_time){.tag = y->tag, .tag_len = y->tag_len});
}

int sl_summary_build(const sl_runset *sets, size_t nsets, const sl_show_filter *flt,
                     sl_summary *s)
{
    memset(s, 0, sizeof *s);
    for (size_t f = 0; f < nsets; f++)
        for (size_t i = 0; i < sets[f].nruns; i++) {
            const sl_run *run = &sets[f].runs[i];
            if (!sl_filter_rank(flt, run->rank))
                continue;
            if (add_run_times(s, run, flt) || add_run_metrics(s, run, s->nruns, flt))
                return -ENOMEM;
            s->nruns++;
        }
    if (s->ntimes)
        qsort(s->times, s->ntimes, sizeof *s->times, time_cmp);
    for (size_t i = 0; i < s->nmetrics; i++)
        s->metrics[i].region_seq = region_place(s, &s->metrics[i]);
    if (s->nmetrics)
        qsort(s->metrics, s->nmetrics, sizeof *s->metrics, metric_cmp);
    return 0;
}

void sl_summary_free(sl_summary *s)
{
    for (size_t i = 0; i < s->ntimes; i++)
        free(s->times[i].tag);
    for (size_t i = 0; i < s->nmetrics; i++) {
        free(s->metrics[i].group);
        free(s->metrics[i].tag);
        free(s->metrics[i].metric);
    }
    free(s->times);
    free(s->metrics);
    memset(s, 0, sizeof *s);
}

double sl_sum_time_mean(const sl_sum_time *t)
{
    return t->ranks ? t->total_s / (double)t->ranks : NAN;
}

double sl_sum_time_imbalance(const sl_sum_time *t)
{
    return t->max_s > 0 ? (t->max_s - sl_sum_time_mean(t)) / t->max_s * 100 : 0;
}

/* ---- the table ---------------------------------------------------------- */

static const char *const time_head[] = {"Region", "ranks", "threads", "calls",
                                        "min [s]", "mean [s]", "max [s]", "imbalance [%]"};
static const char *const metric_head[] = {"Region", "metric", "HWThreads", "min", "mean",
                                          "max", "sum"};
#define NCOLS(a) (sizeof a / sizeof *a)

static int head_row(sl_table *t, const char *const *head, size_t n)
{
    long row = sl_table_add_row(t);
    int rc = row < 0 ? -ENOMEM : 0;
    for (size_t c = 0; c < n && !rc; c++)
        rc = sl_table_set(t, (size_t)row, c, head[c]);
    return rc;
}

static int set_tag(sl_table *t, size_t row, const char *tag, size_t len)
{
    char *d = sl_show_tag(tag, len, 1);
    int rc = d ? sl_table_set(t, row, 0, d) : -ENOMEM;
    free(d);
    return rc;
}

static int set_num(sl_table *t, size_t row, size_t col, double v)
{
    char num[SL_NUM_BUF];
    return sl_table_set(t, row, col, sl_fmt_value(v, num));
}

static int time_table(FILE *f, const sl_summary *s)
{
    sl_table t;
    sl_table_init(&t, NCOLS(time_head));
    int rc = head_row(&t, time_head, NCOLS(time_head));
    char num[SL_NUM_BUF];
    for (size_t i = 0; i < s->ntimes && !rc; i++) {
        const sl_sum_time *r = &s->times[i];
        long row = sl_table_add_row(&t);
        if (row < 0) {
            rc = -ENOMEM;
            break;
        }
        size_t w = (size_t)row;
        rc = set_tag(&t, w, r->tag, r->tag_len);
        rc |= sl_table_set(&t, w, 1, sl_fmt_int((long long)r->ranks, num));
        rc |= sl_table_set(&t, w, 2, sl_fmt_int((long long)r->threads, num));
        rc |= sl_table_set(&t, w, 3, sl_fmt_int(r->calls, num));
        rc |= sl_table_setf(&t, w, 4, "%.6g", r->min_s);
        rc |= sl_table_setf(&t, w, 5, "%.6g", sl_sum_time_mean(r));
        rc |= sl_table_setf(&t, w, 6, "%.6g", r->max_s);
        rc |= sl_table_setf(&t, w, 7, "%.1f", sl_sum_time_imbalance(r));
    }
    if (!rc)
        rc = sl_table_print(f, &t, 1);
    sl_table_free(&t);
    return rc ? -ENOMEM : 0;
}

/* One table per group, from s->metrics[from]; returns the index after it. */
static size_t metric_table(FILE *f, const sl_summary *s, size_t from, int *rc)
{
    const char *group = s->metrics[from].group;
    fprintf(f, "\nLIKWID group %s, metrics over HWThreads (sum only where it means something):\n",
            group);
    sl_table t;
    sl_table_init(&t, NCOLS(metric_head));
    *rc = head_row(&t, metric_head, NCOLS(metric_head));
    char num[SL_NUM_BUF];
    size_t i = from;
    for (; i < s->nmetrics && !strcmp(s->metrics[i].group, group) && !*rc; i++) {
        const sl_sum_metric *m = &s->metrics[i];
        long row = sl_table_add_row(&t);
        if (row < 0) {
            *rc = -ENOMEM;
            break;
        }
        size_t w = (size_t)row;
        *rc = set_tag(&t, w, m->tag, m->tag_len);
        *rc |= sl_table_set(&t, w, 1, m->metric);
        *rc |= sl_table_set(&t, w, 2, sl_fmt_int((long long)m->hwthreads, num));
        if (!m->hwthreads)
            continue;
        *rc |= set_num(&t, w, 3, m->min);
        *rc |= set_num(&t, w, 4, m->sum / (double)m->hwthreads);
        *rc |= set_num(&t, w, 5, m->max);
        if (sl_metric_summable(m->metric))
            *rc |= set_num(&t, w, 6, m->sum);
    }
    if (!*rc)
        *rc = sl_table_print(f, &t, 1);
    sl_table_free(&t);
    while (i < s->nmetrics && !strcmp(s->metrics[i].group, group))
        i++;
    return i;
}

int sl_summary_table(FILE *f, const sl_summary *s)
{
    fprintf(f, "Summary over %zu rank%s: a rank's time in a region summed over its threads; "
               "imbalance = (max - mean) / max\n",
            s->nruns, s->nruns == 1 ? "" : "s");
    int rc = time_table(f, s);
    for (size_t i = 0; i < s->nmetrics && !rc;)
        i = metric_table(f, s, i, &rc);
    return rc;
}

/* ---- CSV ------------------------------------------------------------------ */

static void csv_num(FILE *f, double v)
{
    char num[SL_NUM_BUF];
    fputc(',', f);
    fputs(sl_fmt_exact(v, num), f);
}

/* A row's first columns, the same in both kinds: region,ranks,threads,calls. */
static int csv_lead(FILE *f, const char *tag, size_t len, size_t ranks, size_t threads,
                    long long calls)
{
    char *d = sl_tag_display(tag, len);
    if (!d)
        return -ENOMEM;
    sl_csv_field(f, d);
    free(d);
    fprintf(f, ",%zu,%zu,%lld", ranks, threads, calls);
    return 0;
}

int sl_summary_csv(FILE *f, const sl_summary *s)
{
    fputs("region,ranks,threads,calls,min_s,mean_s,max_s,imbalance_pct,"
          "group,metric,min,mean,max,sum\n",
          f);
    for (size_t i = 0; i < s->ntimes; i++) {
        const sl_sum_time *r = &s->times[i];
        if (csv_lead(f, r->tag, r->tag_len, r->ranks, r->threads, (long long)r->calls))
            return -ENOMEM;
        csv_num(f, r->min_s);
        csv_num(f, sl_sum_time_mean(r));
        csv_num(f, r->max_s);
        csv_num(f, sl_sum_time_imbalance(r));
        fputs(",,,,,,\n", f);
    }
    for (size_t i = 0; i < s->nmetrics; i++) {
        const sl_sum_metric *m = &s->metrics[i];
        if (csv_lead(f, m->tag, m->tag_len, m->ranks, m->hwthreads, (long long)m->calls))
            return -ENOMEM;
        fputs(",,,,,", f);
        sl_csv_field(f, m->group);
        fputc(',', f);
        sl_csv_field(f, m->metric);
        if (!m->hwthreads) {
            fputs(",,,,\n", f);
            continue;
        }
        csv_num(f, m->min);
        csv_num(f, m->sum / (double)m->hwthreads);
        csv_num(f, m->max);
        if (sl_metric_summable(m->metric))
            csv_num(f, m->sum);
        else
            fputc(',', f);
        fputc('\n', f);
    }
    return 0;
}
