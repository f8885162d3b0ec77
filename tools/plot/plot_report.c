/* The report of scope-likwid plot (plot_report.h): lays out the header
 * (plot_header.c) and the three charts of every rank, in HTML or as one
 * standalone SVG. */
#include "plot_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "plot_axis.h"
#include "plot_bars.h"
#include "plot_colours.h"
#include "plot_header.h"
#include "plot_timeline.h"
#include "region_order.h"
#include "schema.h"


static const char css_svg[] =
    "text{font:11px sans-serif;fill:#222}"
    ".axis line{stroke:#e2e2e2}.axis text{fill:#666}.unit{font-style:italic}"
    ".sep{stroke:#eee}.rl{font-weight:bold}.sub{fill:#666}.tl{text-anchor:end;fill:#444}"
    ".v{font-family:monospace}.h1{font-size:18px;font-weight:bold}.h2{font-size:15px;font-weight:bold}"
    ".h3{font-size:13px;font-weight:bold}.note{fill:#555}\n";
static const char css_html[] =
    "body{font:14px/1.4 sans-serif;margin:16px 20px;color:#222;background:#fff}"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;border-bottom:1px solid #ccc;margin:24px 0 6px}"
    "h3{font-size:15px;margin:18px 0 2px}.note{color:#555;font-size:13px;margin:2px 0 6px}"
    "table.attrs{border-collapse:collapse;font-size:13px}"
    "table.attrs th{text-align:left;padding:1px 12px 1px 0;color:#555;font-weight:normal;vertical-align:top}"
    "table.attrs td{font-family:monospace;white-space:pre-wrap;word-break:break-all}"
    "svg.chart{display:block}\n";

/* ---- (a) region time per thread ------------------------------------------ */

static void free_groups(sl_bar_group *g, size_t n)
{
    for (size_t i = 0; g && i < n; i++)
        free(g[i].bars);
    free(g);
}

static int times_chart(sl_plot_out *o, const sl_run *run, const sl_plot_colours *col)
{
    const sl_timing *tm = &run->timing;
    sl_plot_heading(o, 3, "Region time per thread");
    if (!tm->nregions) {
        sl_plot_note(o, "No timed regions.");
        return 0;
    }
    sl_plot_note(o, "The shim's timing: total time of each region in each thread (calls in brackets), "
            "regions costliest first.");
    struct sl_cost_key *c = calloc(tm->nregions, sizeof *c);
    sl_bar_group *g = calloc(tm->nregions, sizeof *g);
    if (!c || !g) {
        free(c);
        free(g);
        return -ENOMEM;
    }
    for (size_t i = 0; i < tm->nregions; i++) {
        c[i].idx = i;
        for (size_t t = 0; t < tm->regions[i].nthreads; t++)
            c[i].cost += (double)tm->regions[i].total_ns[t];
    }
    qsort(c, tm->nregions, sizeof *c, sl_cost_key_cmp);
    int rc = 0;
    for (size_t k = 0; k < tm->nregions && !rc; k++) {
        const sl_timing_region *r = &tm->regions[c[k].idx];
        g[k] = (sl_bar_group){.tag = r->tag, .tag_len = r->tag_len,
                              .colour = sl_plot_colour(col, r->tag, r->tag_len), .nbars = r->nthreads};
        g[k].bars = calloc(r->nthreads ? r->nthreads : 1, sizeof *g[k].bars);
        if (!g[k].bars) {
            rc = -ENOMEM;
            break;
        }
        for (size_t t = 0; t < r->nthreads; t++) {
            sl_bar *bar = &g[k].bars[t];
            snprintf(bar->label, sizeof bar->label, "tid %lld", (long long)r->threads[t]);
            bar->value = (double)r->total_ns[t] / 1e6;
            snprintf(bar->note, sizeof bar->note, "(%lld call%s)", (long long)r->call_counts[t],
                     r->call_counts[t] == 1 ? "" : "s");
        }
    }
    if (!rc) {
        sl_buf body;
        sl_buf_init(&body);
        double h = sl_plot_bars(&body, g, tm->nregions, SL_PLOT_WIDTH, "total per thread [ms]");
        sl_plot_chart(o, SL_H5N_times, &body, h);
        sl_buf_free(&body);
    }
    free_groups(g, tm->nregions);
    free(c);
    return rc;
}

/* ---- (b) timeline ---------------------------------------------------------- */

static int timeline_chart(sl_plot_out *o, const sl_run *run, sl_tl_select *sel,
                          const sl_plot_colours *col, size_t cap)
{
    sl_plot_heading(o, 3, "Timeline of the recorded calls");
    sl_buf body;
    sl_buf_init(&body);
    sl_tl_stats st;
    double h = sl_plot_timeline(&body, run, sel, col, SL_PLOT_WIDTH, &st);
    int rc = body.failed ? -ENOMEM : 0;
    char t[400];
    if (!rc && !st.recorded) {
        snprintf(t, sizeof t, "No per-call samples in this rank%s.",
                 st.shim_dropped ? " (the shim kept none: SCOPE_LIKWID_MAX_CALLS)" : "");
        sl_plot_note(o, t);
    } else if (!rc) {
        int n = snprintf(t, sizeof t, "Drew %zu of %zu recorded calls", st.drawn, st.recorded);
        if (st.drawn < st.recorded)
            n += snprintf(t + n, sizeof t - (size_t)n,
                          "; %zu shorter ones left out (at most %zu calls are drawn per report)",
                          st.recorded - st.drawn, cap);
        if (st.shim_dropped)
            n += snprintf(t + n, sizeof t - (size_t)n,
                          "; the shim counted %lld more calls without keeping their times "
                          "(SCOPE_LIKWID_MAX_CALLS)", (long long)st.shim_dropped);
        snprintf(t + n, sizeof t - (size_t)n, ". One row per thread; nested calls are drawn thinner.");
        sl_plot_note(o, t);
        sl_plot_chart(o, "timeline", &body, h);
    }
    sl_buf_free(&body);
    return rc;
}

/* ---- (c) one counter metric ------------------------------------------------ */

enum row_kind { ROW_NONE, ROW_METRIC, ROW_EVENT, ROW_RUNTIME, ROW_CALLS };

/* Where region r holds the values named name; *index is the row. */
static enum row_kind find_row(const sl_region *r, char **labels, const char *name, size_t *index)
{
    for (size_t m = 0; m < r->nmetrics; m++)
        if (r->metric_names[m] && !strcmp(r->metric_names[m], name)) {
            *index = m;
            return ROW_METRIC;
        }
    for (size_t e = 0; labels && e < r->nevents; e++)
        if (!strcmp(labels[e], name)) {
            *index = e;
            return ROW_EVENT;
        }
    if (!strcmp(name, "runtime"))
        return ROW_RUNTIME;
    if (!strcmp(name, "call count"))
        return ROW_CALLS;
    return ROW_NONE;
}

static double row_value(const sl_region *r, enum row_kind k, size_t idx, size_t t)
{
    switch (k) {
    case ROW_METRIC: return r->metrics[idx * r->nthreads + t];
    case ROW_EVENT: return r->events[idx * r->nthreads + t];
    case ROW_RUNTIME: return r->times[t];
    case ROW_CALLS: return (double)r->call_counts[t];
    default: return NAN;
    }
}

/* The default metric: the first metric of the first region (show's order,
 * ranks in file order) that has metrics; "runtime" when none has. */
static const char *default_metric(const sl_runset *set)
{
    for (size_t r = 0; r < set->nruns; r++) {
        const sl_likwid *lw = &set->runs[r].likwid;
        size_t *c = sl_likwid_order(lw);  /* show's order */
        const char *found = NULL;
        for (size_t k = 0; c && k < lw->nregions && !found; k++) {
            const sl_region *reg = &lw->regions[c[k]];
            if (reg->nmetrics && reg->metric_names[0])
                found = reg->metric_names[0];
        }
        free(c);
        if (found)
            return found;
    }
    return "runtime";
}

static int metric_chart(sl_plot_out *o, const sl_run *run, const char *metric,
                        const sl_plot_colours *col)
{
    const sl_likwid *lw = &run->likwid;
    char t[400];
    if (lw->source == SL_SOURCE_NONE) {
        sl_plot_heading(o, 3, "Counters");
        sl_plot_note(o, "No counter data in this rank (see likwid_status above).");
        return 0;
    }
    snprintf(t, sizeof t, "Counters: %s", metric);
    sl_plot_heading(o, 3, t);
    size_t *c = sl_likwid_order(lw);  /* show's order */
    sl_bar_group *g = calloc(lw->nregions ? lw->nregions : 1, sizeof *g);
    if (!c || !g) {
        free(c);
        free(g);
        return -ENOMEM;
    }
    size_t ng = 0, missing = 0;
    int rc = 0;
    for (size_t k = 0; k < lw->nregions && !rc; k++) {
        const sl_region *r = &lw->regions[c[k]];
        char **labels = r->nevents ? sl_event_labels(r) : NULL;
        if (r->nevents && !labels) {
            rc = -ENOMEM;
            break;
        }
        size_t idx = 0;
        enum row_kind kind = find_row(r, labels, metric, &idx);
        sl_labels_free(labels, r->nevents);
        if (kind == ROW_NONE) {
            missing++;
            continue;
        }
        sl_bar_group *gr = &g[ng++];
        *gr = (sl_bar_group){.tag = r->tag, .tag_len = r->tag_len, .sub = r->group_name,
                             .colour = sl_plot_colour(col, r->tag, r->tag_len), .nbars = r->nthreads};
        gr->bars = calloc(r->nthreads ? r->nthreads : 1, sizeof *gr->bars);
        if (!gr->bars) {
            rc = -ENOMEM;
            break;
        }
        for (size_t th = 0; th < r->nthreads; th++) {
            snprintf(gr->bars[th].label, sizeof gr->bars[th].label, "cpu %lld", (long long)r->cpus[th]);
            gr->bars[th].value = row_value(r, kind, idx, th);
        }
    }
    if (!rc) {
        int n = snprintf(t, sizeof t, "LIKWID's values (source %s) per region and hardware thread",
                         sl_source_name(lw->source));
        if (missing)
            snprintf(t + n, sizeof t - (size_t)n, "; %zu region%s without this value not shown", missing,
                     missing == 1 ? "" : "s");
        sl_plot_note(o, t);
        if (ng) {
            sl_buf body;
            sl_buf_init(&body);
            const char *unit = !strcmp(metric, "runtime") ? "runtime [s]" : metric;
            double h = sl_plot_bars(&body, g, ng, SL_PLOT_WIDTH, unit);
            sl_plot_chart(o, "metric", &body, h);
            sl_buf_free(&body);
        }
    }
    free_groups(g, ng);
    free(c);
    return rc;
}

/* Whether any region of any rank has a value named metric. */
static int metric_exists(const sl_runset *set, const char *metric)
{
    if (!strcmp(metric, "runtime") || !strcmp(metric, "call count"))
        return 1;
    for (size_t r = 0; r < set->nruns; r++) {
        const sl_likwid *lw = &set->runs[r].likwid;
        for (size_t i = 0; i < lw->nregions; i++) {
            const sl_region *reg = &lw->regions[i];
            char **labels = reg->nevents ? sl_event_labels(reg) : NULL;
            size_t idx;
            int found = find_row(reg, labels, metric, &idx) != ROW_NONE;
            sl_labels_free(labels, reg->nevents);
            if (found)
                return 1;
        }
    }
    return 0;
}

/* ---- the report ------------------------------------------------------------ */

int sl_plot_report(sl_buf *out, const sl_runset *set, const sl_plot_opts *opts)
{
    const char *metric = opts->metric ? opts->metric : default_metric(set);
    if (opts->metric && !metric_exists(set, metric)) {
        fprintf(stderr, "%s: no region has a metric or event '%s': expected a metric name, an "
                        "event label, \"runtime\" or \"call count\" (see scope-likwid show)\n",
                opts->title, metric);
        return -ENOENT;
    }
    sl_plot_colours col;
    sl_tl_select sel;
    if (sl_plot_colours_build(&col, set))
        return -ENOMEM;
    if (sl_plot_tl_select(set, opts->max_rects, &sel)) {
        sl_plot_colours_free(&col);
        return -ENOMEM;
    }
    /* SVG: the body first (its height is known only at the end) */
    sl_buf body;
    sl_buf_init(&body);
    sl_plot_out o = {opts->svg ? &body : out, opts->svg, 0};
    if (!opts->svg) {
        sl_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\n"
                         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                         "style-src 'unsafe-inline'\"/>\n"
                         "<meta name=\"generator\" content=\"scope-likwid " SCOPE_LIKWID_VERSION "\"/>\n"
                         "<title>scope-likwid: ");
        sl_buf_text(out, opts->title, strlen(opts->title), 200);
        sl_buf_printf(out, "</title>\n<style>%s%s", css_html, css_svg);
        sl_plot_colours_css(&col, out);
        sl_buf_puts(out, "</style></head>\n<body>\n");
    }
    sl_plot_heading(&o, 1, "scope-likwid report");
    char t[200];
    snprintf(t, sizeof t, "%zu rank%s in ", set->nruns, set->nruns == 1 ? "" : "s");
    sl_buf line;
    sl_buf_init(&line);
    sl_buf_puts(&line, t);
    sl_buf_puts(&line, opts->title);
    sl_plot_note(&o, line.failed ? "" : line.data);
    sl_buf_free(&line);
    int rc = sl_plot_meta_header(&o, &set->meta);
    for (size_t r = 0; r < set->nruns && !rc; r++) {
        const sl_run *run = &set->runs[r];
        if (!opts->svg)
            sl_buf_printf(out, "<section class=\"rank\" id=\"rank%lld\">\n", (long long)run->rank);
        rc = sl_plot_rank_header(&o, run);
        if (!rc)
            rc = times_chart(&o, run, &col);
        if (!rc)
            rc = timeline_chart(&o, run, &sel, &col, opts->max_rects);
        if (!rc)
            rc = metric_chart(&o, run, metric, &col);
        if (!opts->svg)
            sl_buf_puts(out, "</section>\n");
    }
    if (opts->svg) {
        o.y += 12;
        sl_buf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                           "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                           "viewBox=\"0 0 %.0f %.0f\">\n<title>scope-likwid: ",
                      SL_PLOT_WIDTH, o.y, SL_PLOT_WIDTH, o.y);
        sl_buf_text(out, opts->title, strlen(opts->title), 200);
        sl_buf_printf(out, "</title>\n<style>%s", css_svg);
        sl_plot_colours_css(&col, out);
        sl_buf_printf(out, "</style>\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n",
                      SL_PLOT_WIDTH, o.y);
        if (body.len)
            sl_buf_put(out, body.data, body.len);
        if (body.failed)
            out->failed = 1;
        sl_buf_puts(out, "</svg>\n");
    } else {
        sl_buf_puts(out, "</body></html>\n");
    }
    sl_buf_free(&body);
    sl_plot_colours_free(&col);
    if (!rc && out->failed)
        rc = -ENOMEM;
    return rc;
}
