/* The comparison behind `scope-likwid diff`: runs paired by origin
 * (diff_pair.c), timing regions by exact tag bytes, LIKWID regions by (tag
 * bytes, group_id). */
#include "diff.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "names.h"
#include "sat.h"
#include "vec.h"

/* What one comparison needs besides its rows. */
typedef struct diff_ctx {
    sl_diff *d;
    const sl_diff_opts *o;
    char capped_example[240]; /* the first timing row whose samples were capped */
} diff_ctx;

/* A new row with everything absent; NULL on ENOMEM. */
static sl_diff_row *add_row(sl_diff *d, const char *rank, const char *tag, size_t tag_len,
                            int64_t group_id, const char *group_name, const char *quantity)
{
    if (SL_VEC_RESERVE(d->rows, d->cap, d->n, 1) < 0)
        return NULL;
    sl_diff_row *r = &d->rows[d->n];
    memset(r, 0, sizeof *r);
    r->group_id = group_id;
    r->base = r->new_ = r->base_min = r->new_min = r->change_pct = NAN;
    r->statistic = "";
    r->unit = "";
    r->rank = strdup(rank);
    r->region = tag ? sl_tag_display(tag, tag_len) : strdup("(whole rank)");
    r->group_name = sl_tag_display(group_name, strlen(group_name));
    r->quantity = strdup(quantity);
    d->n++;
    if (!r->rank || !r->region || !r->group_name || !r->quantity)
        return NULL; /* freed with the others by sl_diff_free */
    return r;
}

/* Change in percent and its verdict; times go up as "slower". */
static void judge(sl_diff_row *r, double threshold, int is_time)
{
    if (isnan(r->base) || isnan(r->new_)) {
        r->verdict = SL_V_NO_DATA;
        return;
    }
    double chg;
    if (r->base == 0)
        chg = r->new_ == 0 ? 0 : (r->new_ > 0 ? INFINITY : -INFINITY);
    else
        chg = (r->new_ - r->base) / fabs(r->base) * 100.0;
    /* to 1e-6 %: what is shown is what is judged (5.000000000000004 is 5) */
    if (isfinite(chg))
        chg = round(chg * 1e6) / 1e6;
    r->change_pct = isfinite(chg) ? chg : NAN;
    if (chg > threshold)
        r->verdict = is_time ? SL_V_SLOWER : SL_V_HIGHER;
    else if (chg < -threshold)
        r->verdict = is_time ? SL_V_FASTER : SL_V_LOWER;
    else
        r->verdict = SL_V_SAME;
}

/* The row's gate: what base has and new lacks (missing) fails unless
 * allowed; else a change beyond the threshold in the worse direction
 * fails (times: lower is better; a metric: its direction, none never
 * fails). */
static void set_gate(diff_ctx *c, sl_diff_row *r, int missing, sl_better better)
{
    r->missing = missing;
    if (missing) {
        r->gate = c->o->allow_missing ? SL_GATE_NONE : SL_GATE_FAIL;
        c->d->missing += r->gate == SL_GATE_FAIL;
        return;
    }
    if (better == SL_BETTER_NONE || r->verdict == SL_V_ONLY_NEW || r->verdict == SL_V_NO_DATA) {
        r->gate = SL_GATE_NONE;
        return;
    }
    int worse = better == SL_BETTER_LOWER
                    ? r->verdict == SL_V_SLOWER || r->verdict == SL_V_HIGHER
                    : r->verdict == SL_V_LOWER;
    r->gate = worse ? SL_GATE_FAIL : SL_GATE_PASS;
    if (worse && r->verdict == SL_V_SLOWER)
        c->d->slower++;
    else if (worse)
        c->d->worse++;
}

/* A compared row's gate: missing when base has a value new lacks. */
static void gate_values(diff_ctx *c, sl_diff_row *r, sl_better better)
{
    set_gate(c, r, r->verdict == SL_V_ONLY_BASE || (!isnan(r->base) && isnan(r->new_)), better);
}

/* ---- the shim's timing ---------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Median and minimum of the recorded per-call durations, in ms. */
static int median_ms(const sl_timing_region *r, double *median, double *min)
{
    int64_t *d = malloc(r->ncalls * sizeof *d);
    if (!d)
        return -ENOMEM;
    for (size_t i = 0; i < r->ncalls; i++)
        d[i] = sl_sub_sat(r->end_times[i], r->start_times[i]);
    qsort(d, r->ncalls, sizeof *d, cmp_i64);
    size_t n = r->ncalls;
    double m = n % 2 ? (double)d[n / 2] : ((double)d[n / 2 - 1] + (double)d[n / 2]) / 2.0;
    *median = m / 1e6;
    *min = (double)d[0] / 1e6;
    free(d);
    return 0;
}

/* total_ns / calls over all threads, in ms; NAN without calls. */
static double mean_ms(const sl_timing_region *r)
{
    double total = 0, calls = 0;
    for (size_t t = 0; t < r->nthreads; t++) {
        total += (double)r->total_ns[t];
        calls += (double)r->call_counts[t];
    }
    return calls > 0 ? total / calls / 1e6 : NAN;
}

/* Calls counted over all threads (kept and dropped). */
static int64_t calls_counted(const sl_timing_region *r)
{
    int64_t n = 0;
    for (size_t t = 0; t < r->nthreads; t++)
        n = sl_add_sat(n, r->call_counts[t]);
    return n;
}

/* Some calls were counted without their per-call sample (dropped_calls:
 * the SCOPE_LIKWID_MAX_CALLS cap, or no room; or fewer samples than calls
 * counted): a median of the kept samples is not the region's. A region
 * with no samples at all and nothing dropped never kept any (a file
 * without per-call samples): its mean is all there is. */
static int samples_capped(const sl_timing_region *r)
{
    return r && (r->dropped_calls > 0 || (r->ncalls > 0 && (int64_t)r->ncalls < calls_counted(r)));
}

/* One side's value with the statistic chosen for the row. */
static int timing_value(const sl_timing_region *r, int use_median, double *v, double *min)
{
    *min = NAN;
    if (use_median)
        return median_ms(r, v, min);
    *v = mean_ms(r);
    return 0;
}

static const sl_timing_region *find_timing(const sl_timing *t, const char *tag, size_t len)
{
    for (size_t i = 0; i < t->nregions; i++)
        if (t->regions[i].tag_len == len && !memcmp(t->regions[i].tag, tag, len))
            return &t->regions[i];
    return NULL;
}

static int timing_row(diff_ctx *c, const char *rank, const sl_timing_region *b,
                      const sl_timing_region *n)
{
    const sl_timing_region *any = b ? b : n;
    int capped = samples_capped(b) || samples_capped(n);
    /* median needs every call's sample on both sides (or the one side
     * there is); else the totals' mean, which counts every call */
    int use_median = (!b || b->ncalls > 0) && (!n || n->ncalls > 0) && !capped;
    sl_diff_row *r = add_row(c->d, rank, any->tag, any->tag_len, -1, "", "time/call");
    if (!r)
        return -ENOMEM;
    r->statistic = use_median ? "median" : capped ? "mean (samples capped)" : "mean";
    r->unit = "ms";
    int rc = 0;
    if (b)
        rc = timing_value(b, use_median, &r->base, &r->base_min);
    if (!rc && n)
        rc = timing_value(n, use_median, &r->new_, &r->new_min);
    if (!b)
        r->verdict = SL_V_ONLY_NEW;
    else if (!n)
        r->verdict = SL_V_ONLY_BASE;
    else
        judge(r, c->o->threshold, 1);
    if (capped && !c->d->capped++) {
        const sl_timing_region *side = samples_capped(b) ? b : n;
        snprintf(c->capped_example, sizeof c->capped_example, "%s %s: %s kept %zu of %lld calls",
                 rank, r->region, side == b ? "base" : "new", side->ncalls,
                 (long long)calls_counted(side));
    }
    gate_values(c, r, SL_BETTER_LOWER);
    return rc;
}

static int compare_timing(diff_ctx *c, const char *rank, const sl_timing *b, const sl_timing *n)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < b->nregions; i++) {
        const sl_timing_region *br = &b->regions[i];
        rc = timing_row(c, rank, br, find_timing(n, br->tag, br->tag_len));
    }
    for (size_t i = 0; !rc && i < n->nregions; i++) {
        const sl_timing_region *nr = &n->regions[i];
        if (!find_timing(b, nr->tag, nr->tag_len))
            rc = timing_row(c, rank, NULL, nr);
    }
    return rc;
}

/* ---- LIKWID's data -------------------------------------------------------- */

/* The region's runtime: the slowest thread's seconds per call (the region
 * is done when its last thread is). NAN when no thread has calls. */
static double runtime_per_call(const sl_region *r)
{
    double best = NAN;
    for (size_t t = 0; t < r->nthreads; t++) {
        if (r->call_counts[t] <= 0 || !isfinite(r->times[t]))
            continue;
        double v = r->times[t] / (double)r->call_counts[t];
        if (isnan(best) || v > best)
            best = v;
    }
    return best;
}

/* Mean over threads (finite values) of a metric, or else of an event with
 * that label; NAN when the region has neither. */
static int metric_mean(const sl_region *r, const char *name, double *out)
{
    *out = NAN;
    const double *row;
    int found = sl_region_row(r, name, &row);
    if (found <= 0)
        return found;
    double s = 0;
    size_t k = 0;
    for (size_t t = 0; t < r->nthreads; t++)
        if (isfinite(row[t])) {
            s += row[t];
            k++;
        }
    if (k)
        *out = s / (double)k;
    return 0;
}

static const sl_region *find_region(const sl_likwid *lw, const sl_region *like)
{
    for (size_t i = 0; i < lw->nregions; i++) {
        const sl_region *r = &lw->regions[i];
        if (r->group_id == like->group_id && r->tag_len == like->tag_len &&
            !memcmp(r->tag, like->tag, like->tag_len))
            return r;
    }
    return NULL;
}

static int likwid_rows(diff_ctx *c, const char *rank, const sl_region *b, const sl_region *n)
{
    const sl_region *any = b ? b : n;
    const char *gname = any->group_name && *any->group_name
                            ? any->group_name
                            : (b && n && n->group_name ? n->group_name : "");
    sl_diff_row *r = add_row(c->d, rank, any->tag, any->tag_len, any->group_id, gname,
                             "runtime/call");
    if (!r)
        return -ENOMEM;
    r->statistic = "max thread";
    r->unit = "s";
    if (b)
        r->base = runtime_per_call(b);
    if (n)
        r->new_ = runtime_per_call(n);
    if (!b || !n) {
        r->verdict = b ? SL_V_ONLY_BASE : SL_V_ONLY_NEW;
        gate_values(c, r, SL_BETTER_LOWER);
        return 0; /* metrics only where both sides can be compared */
    }
    judge(r, c->o->threshold, 1);
    gate_values(c, r, SL_BETTER_LOWER);
    if (b->nevents > 0 && n->nevents == 0) {
        /* LIKWID stopped counting: the region is there, its counters not */
        if (!(r = add_row(c->d, rank, any->tag, any->tag_len, any->group_id, gname, "counters")))
            return -ENOMEM;
        r->statistic = "events";
        r->base = (double)b->nevents;
        r->new_ = 0;
        r->verdict = SL_V_NO_DATA;
        set_gate(c, r, 1, SL_BETTER_NONE);
    }
    for (size_t m = 0; m < c->o->nmetrics; m++) {
        const sl_diff_metric *want = &c->o->metrics[m];
        double bv, nv;
        int rc = metric_mean(b, want->name, &bv);
        if (!rc)
            rc = metric_mean(n, want->name, &nv);
        if (rc)
            return rc;
        if (isnan(bv) && isnan(nv))
            continue; /* not this group's metric */
        if (!(r = add_row(c->d, rank, any->tag, any->tag_len, any->group_id, gname, want->name)))
            return -ENOMEM;
        r->statistic = "thread mean";
        r->base = bv;
        r->new_ = nv;
        judge(r, c->o->threshold, 0);
        gate_values(c, r, want->better);
    }
    return 0;
}

static int compare_likwid(diff_ctx *c, const char *rank, const sl_likwid *b, const sl_likwid *n)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < b->nregions; i++)
        rc = likwid_rows(c, rank, &b->regions[i], find_region(n, &b->regions[i]));
    for (size_t i = 0; !rc && i < n->nregions; i++)
        if (!find_region(b, &n->regions[i]))
            rc = likwid_rows(c, rank, NULL, &n->regions[i]);
    return rc;
}

int sl_diff_has_metric(const sl_runset *s, const char *name)
{
    for (size_t i = 0; i < s->nruns; i++) {
        const sl_likwid *lw = &s->runs[i].likwid;
        for (size_t k = 0; k < lw->nregions; k++) {
            double v;
            const sl_region *r = &lw->regions[k];
            int found = 0;
            for (size_t m = 0; m < r->nmetrics && !found; m++)
                found = r->metric_names[m] && !strcmp(r->metric_names[m], name);
            if (found)
                return 1;
            /* an event label (the mean is NAN only when no thread's is finite) */
            if (metric_mean(r, name, &v) < 0)
                return -ENOMEM;
            if (!isnan(v))
                return 1;
        }
    }
    return 0;
}

/* ---- ranks ---------------------------------------------------------------- */

/* The run's group name ("rank<N>" when the reader left none). */
static void group_text(char *buf, size_t len, const sl_run *r)
{
    if (r->group && *r->group)
        snprintf(buf, len, "%s", r->group);
    else
        snprintf(buf, len, "rank%lld", (long long)r->rank);
}

/* The rows' label: the group's name, "base/new" when the names differ. */
static char *rank_label(const sl_run *b, const sl_run *n)
{
    char gb[200] = "", gn[200] = "";
    if (b)
        group_text(gb, sizeof gb, b);
    if (n)
        group_text(gn, sizeof gn, n);
    size_t len = strlen(gb) + strlen(gn) + 2;
    char *s = malloc(len);
    if (!s)
        return NULL;
    if (b && n && strcmp(gb, gn))
        snprintf(s, len, "%s/%s", gb, gn);
    else
        snprintf(s, len, "%s", b ? gb : gn);
    /* stray bytes as \xHH, like every other text of the rows */
    char *d = sl_tag_display(s, strlen(s));
    free(s);
    return d;
}

static int whole_rank(diff_ctx *c, const char *rank, sl_verdict v)
{
    sl_diff_row *r = add_row(c->d, rank, NULL, 0, -1, "", "");
    if (!r)
        return -ENOMEM;
    r->verdict = v;
    set_gate(c, r, v == SL_V_ONLY_BASE, SL_BETTER_NONE);
    return 0;
}

int sl_diff_build(const sl_runset *base, const sl_runset *new_, const sl_diff_opts *o,
                  sl_diff *out)
{
    memset(out, 0, sizeof *out);
    diff_ctx c = {.d = out, .o = o};
    size_t *to_new;
    int rc = sl_diff_pair(base, new_, &to_new);
    unsigned char *paired = rc ? NULL : calloc(new_->nruns ? new_->nruns : 1, 1);
    if (!rc && !paired)
        rc = -ENOMEM;
    for (size_t i = 0; !rc && i < base->nruns; i++) {
        const sl_run *b = &base->runs[i];
        const sl_run *n = to_new[i] == SIZE_MAX ? NULL : &new_->runs[to_new[i]];
        char *rank = rank_label(b, n);
        if (!rank) {
            rc = -ENOMEM;
            break;
        }
        if (!n) {
            rc = whole_rank(&c, rank, SL_V_ONLY_BASE);
        } else {
            paired[to_new[i]] = 1;
            rc = compare_timing(&c, rank, &b->timing, &n->timing);
            if (!rc)
                rc = compare_likwid(&c, rank, &b->likwid, &n->likwid);
        }
        free(rank);
    }
    for (size_t i = 0; !rc && i < new_->nruns; i++) {
        if (paired[i])
            continue;
        char *rank = rank_label(NULL, &new_->runs[i]);
        rc = rank ? whole_rank(&c, rank, SL_V_ONLY_NEW) : -ENOMEM;
        free(rank);
    }
    if (!rc)
        rc = sl_diff_provenance(base, new_, to_new, out);
    if (!rc && out->capped)
        rc = sl_diff_warn(out,
                          "%zu timing row%s compared by mean, not median: per-call samples were "
                          "capped (SCOPE_LIKWID_MAX_CALLS) in base or new (%s)",
                          out->capped, out->capped == 1 ? "" : "s", c.capped_example);
    for (size_t i = 0; i < out->n; i++)
        out->failed += out->rows[i].gate == SL_GATE_FAIL;
    free(to_new);
    free(paired);
    if (rc)
        sl_diff_free(out);
    return rc;
}
