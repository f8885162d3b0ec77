/* The report of scope-likwid plot (plot_report.h): lays out the comparison
 * of files (plot_compare.c), the header (plot_header.c), the views across
 * ranks (plot_ranks.c) and the charts of every rank, in HTML or as one
 * standalone SVG. */
#include "plot_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_bars.h"
#include "plot_colours.h"
#include "plot_header.h"
#include "plot_ranks.h"
#include "plot_timeline.h"
#include "plot_values.h"
#include "region_order.h"
#include "schema.h"


static const char css_svg[] =
    "text{font:11px sans-serif;fill:#222}"
    ".axis line{stroke:#e2e2e2}.axis text{fill:#666}.unit{font-style:italic}"
    ".sep{stroke:#eee}.rl{font-weight:bold}.sub{fill:#666}.tl{text-anchor:end;fill:#444}"
    ".v{font-family:monospace}.h1{font-size:18px;font-weight:bold}.h2{font-size:15px;font-weight:bold}"
    ".h3{font-size:13px;font-weight:bold}.note{fill:#555}.span{fill:#8a96a3}.span.odd{fill:#5f6b78}"
    ".point circle{stroke:#222;stroke-width:1}.minor line{stroke:#f2f2f2}\n";
static const char css_html[] =
    "body{font:14px/1.4 sans-serif;margin:16px 20px;color:#222;background:#fff}"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;border-bottom:1px solid #ccc;margin:24px 0 6px}"
    "h3{font-size:15px;margin:18px 0 2px}.note{color:#555;font-size:13px;margin:2px 0 6px}"
    "table.attrs{border-collapse:collapse;font-size:13px}"
    "table.attrs th{text-align:left;padding:1px 12px 1px 0;color:#555;font-weight:normal;vertical-align:top}"
    "table.attrs td{font-family:monospace;white-space:pre-wrap;word-break:break-all}"
    "svg.chart{display:block}details.rank{margin:2px 0}details.rank>summary{cursor:pointer;font-size:15px}\n";

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
    if (!sl_plot_section(o, "Region time per thread", tm->nregions, "No timed regions.",
                         "The shim's timing: total time of each region in each thread (calls in "
                         "brackets), regions costliest first."))
        return 0;
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

static int timeline_chart(sl_plot_out *o, const sl_run *run, const sl_tl_axis *ax, sl_tl_select *sel,
                          const sl_plot_colours *col, size_t cap)
{
    sl_plot_heading(o, 3, "Timeline of the recorded calls");
    sl_buf body;
    sl_buf_init(&body);
    sl_tl_stats st;
    double h = sl_plot_timeline(&body, run, ax, sel, col, SL_PLOT_WIDTH, &st);
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
                          "; %zu shorter ones left out (at most %zu calls are drawn per file)",
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

/* ---- (c) counter metrics --------------------------------------------------- */

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
        double *v = malloc((r->nthreads ? r->nthreads : 1) * sizeof *v);
        sl_bar *bars = calloc(r->nthreads ? r->nthreads : 1, sizeof *bars);
        int found = v && bars ? sl_plot_row(r, metric, v) : -ENOMEM;
        if (found == 1) {
            for (size_t th = 0; th < r->nthreads; th++) {
                snprintf(bars[th].label, sizeof bars[th].label, "cpu %lld", (long long)r->cpus[th]);
                bars[th].value = v[th];
            }
            g[ng++] = (sl_bar_group){.tag = r->tag, .tag_len = r->tag_len, .sub = r->group_name,
                                     .colour = sl_plot_colour(col, r->tag, r->tag_len),
                                     .nbars = r->nthreads, .bars = bars};
            bars = NULL;
        }
        missing += found == 0;
        rc = found < 0 ? found : 0;
        free(bars);
        free(v);
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
            double h = sl_plot_bars(&body, g, ng, SL_PLOT_WIDTH, metric);
            sl_plot_chart(o, "metric", &body, h);
            sl_buf_free(&body);
        }
    }
    free_groups(g, ng);
    free(c);
    return rc;
}

/* ---- the report ------------------------------------------------------------ */

static int rank_charts(sl_plot_out *o, const sl_run *run, const sl_tl_axis *ax, sl_tl_select *sel,
                       const sl_plot_colours *col, char *const *metrics, size_t nmetrics,
                       const sl_plot_opts *opts)
{
    int rc = sl_plot_rank_header(o, run);
    if (!rc)
        rc = times_chart(o, run, col);
    if (!rc)
        rc = timeline_chart(o, run, ax, sel, col, opts->max_rects);
    for (size_t m = 0; m < nmetrics && !rc; m++)
        rc = metric_chart(o, run, metrics[m], col);
    return rc;
}

/* One file: its /metadata, the views across ranks, then every rank. */
static int file_report(sl_plot_out *o, const sl_plot_file *file, const sl_plot_colours *col,
                       char *const *metrics, size_t nmetrics, const sl_plot_opts *opts)
{
    const sl_runset *set = file->set;
    sl_tl_select sel;
    sl_tl_axis ax;
    if (sl_plot_tl_select(set, opts->max_rects, &sel))
        return -ENOMEM;
    sl_plot_tl_axis(set, &ax);
    int rc = sl_plot_meta_header(o, &set->meta);
    if (!rc && set->nruns > 1)
        rc = sl_plot_ranks_summary(o, set, &ax, col, metrics, nmetrics);
    if (!rc)
        rc = sl_plot_roofline(o, set, col);
    int fold = !o->svg && set->nruns > SL_PLOT_RANKS_OPEN;
    if (!rc && fold) {
        char t[200];
        snprintf(t, sizeof t, "Each rank's charts follow, folded (more than %d ranks): open a rank to "
                 "see them.", SL_PLOT_RANKS_OPEN);
        sl_plot_note(o, t);
    }
    for (size_t r = 0; r < set->nruns && !rc; r++) {
        const sl_run *run = &set->runs[r];
        if (fold) {
            char *title = sl_plot_rank_title(run);
            if (!title) {
                rc = -ENOMEM;
                break;
            }
            sl_buf_printf(o->b, "<details class=\"rank\" id=\"rank%lld\"><summary>", (long long)run->rank);
            sl_buf_text(o->b, title, strlen(title), 0);
            sl_buf_puts(o->b, "</summary>\n");
            free(title);
        } else if (!o->svg)
            sl_buf_printf(o->b, "<section class=\"rank\" id=\"rank%lld\">\n", (long long)run->rank);
        rc = rank_charts(o, run, &ax, &sel, col, metrics, nmetrics, opts);
        if (!o->svg)
            sl_buf_puts(o->b, fold ? "</details>\n" : "</section>\n");
    }
    return rc;
}

static int report_body(sl_plot_out *o, const sl_plot_file *files, size_t nfiles,
                       const sl_plot_colours *col, char *const *metrics, size_t nmetrics,
                       const sl_plot_opts *opts)
{
    sl_plot_heading(o, 1, "scope-likwid report");
    sl_buf line;
    sl_buf_init(&line);
    if (nfiles == 1) {
        sl_buf_printf(&line, "%zu rank%s in ", files[0].set->nruns, files[0].set->nruns == 1 ? "" : "s");
        sl_buf_puts(&line, files[0].name);
    } else {
        sl_buf_printf(&line, "%zu files compared: ", nfiles);
        for (size_t f = 0; f < nfiles; f++)
            sl_buf_printf(&line, "%sfile %zu %s%s", f ? ", " : "", f + 1, files[f].name, f ? "" : " (the base)");
    }
    sl_plot_note(o, line.failed ? "" : line.data);
    sl_buf_free(&line);
    int rc = nfiles > 1 ? sl_plot_compare(o, files, nfiles, col, metrics, nmetrics) : 0;
    for (size_t f = 0; f < nfiles && !rc; f++) {
        if (nfiles > 1) {
            if (!o->svg)
                sl_buf_puts(o->b, "<section class=\"file\">\n");
            sl_buf h;
            sl_buf_init(&h);
            sl_buf_printf(&h, "File %zu: %s", f + 1, files[f].name);
            sl_plot_heading(o, 2, h.failed ? "" : h.data);
            sl_buf_free(&h);
        }
        rc = file_report(o, &files[f], col, metrics, nmetrics, opts);
        if (nfiles > 1 && !o->svg)
            sl_buf_puts(o->b, "</section>\n");
    }
    return rc;
}

int sl_plot_report(sl_buf *out, const sl_plot_file *files, size_t nfiles, const sl_plot_opts *opts)
{
    const sl_runset **sets = calloc(nfiles ? nfiles : 1, sizeof *sets);
    if (!sets)
        return -ENOMEM;
    for (size_t f = 0; f < nfiles; f++)
        sets[f] = files[f].set;
    char *dflt[1] = {(char *)sl_plot_default_metric(sets, nfiles)};
    char *const *metrics = opts->nmetrics ? opts->metrics : dflt;
    size_t nmetrics = opts->nmetrics ? opts->nmetrics : 1;
    sl_plot_colours col;
    int rc = sl_plot_colours_build(&col, sets, nfiles);
    free(sets);
    if (rc)
        return rc;
    const char *title = nfiles ? files[0].name : "";
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
        sl_buf_text(out, title, strlen(title), 200);
        sl_buf_printf(out, "</title>\n<style>%s%s", css_html, css_svg);
        sl_plot_colours_css(&col, out);
        sl_buf_puts(out, "</style></head>\n<body>\n");
    }
    rc = report_body(&o, files, nfiles, &col, metrics, nmetrics, opts);
    if (opts->svg) {
        o.y += 12;
        sl_buf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                           "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                           "viewBox=\"0 0 %.0f %.0f\">\n<title>scope-likwid: ",
                      SL_PLOT_WIDTH, o.y, SL_PLOT_WIDTH, o.y);
        sl_buf_text(out, title, strlen(title), 200);
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
