/* `scope-likwid show --json`: per rank the run's attributes, the LIKWID
 * groups with their regions, and the timing regions. */
#include "show.h"
#include "show_rows.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_json.h"
#include "names.h"
#include "schema.h"

/* A region of the view; orig = the file's region (its CPUs when aggregated).
 * 0 or -ENOMEM. */
static int json_region(FILE *f, const sl_show_filter *flt, const sl_region *r, char **labels,
                        const sl_region *orig, double calls)
{
    int agg = flt->threads != SL_THREADS_ALL;
    fputs("{\"" SL_H5N_tag "\":", f);
    char *tag = sl_tag_display(r->tag, r->tag_len);
    sl_json_string(f, tag ? tag : "");
    free(tag);
    fprintf(f, ",\"" SL_H5N_group_id "\":%lld,\"" SL_H5N_group_name "\":", (long long)r->group_id);
    sl_json_bytes(f, r->group_name);
    fprintf(f, ",\"" SL_H5N_source "\":\"%s\",", sl_source_name(r->source));
    if (agg)
        fprintf(f, "\"thread_aggregate\":\"%s\",", sl_threads_name(flt->threads));
    fputs("\"" SL_H5N_cpus "\":", f);
    sl_json_i64_array(f, orig->cpus, orig->nthreads);
    fputs(",\"" SL_H5N_call_counts "\":", f);
    if (agg)
        sl_json_double_array(f, &calls, 1);
    else
        sl_json_i64_array(f, r->call_counts, r->nthreads);
    fputs(",\"" SL_H5N_times "\":", f);
    sl_json_double_array(f, r->times, r->nthreads);
    /* --metric: only the named rows; the labels, then their values, then
     * the metric names and their values */
    struct sl_value_row *rows;
    long nrows = sl_show_value_rows(r, labels, flt, &rows);
    static const struct {
        const char *open;
        int kind, values;
    } part[] = {
        {",\"" SL_H5N_event_labels "\":[", SL_ROW_EVENT, 0},
        {"],\"" SL_H5N_events "\":[", SL_ROW_EVENT, 1},
        {"],\"" SL_H5N_metric_names "\":[", SL_ROW_METRIC, 0},
        {"],\"" SL_H5N_metrics "\":[", SL_ROW_METRIC, 1},
    };
    for (size_t p = 0; p < sizeof part / sizeof part[0]; p++) {
        fputs(part[p].open, f);
        size_t n = 0;
        for (long j = 0; j < nrows; j++) {
            if ((int)rows[j].kind != part[p].kind)
                continue;
            fputs(n++ ? "," : "", f);
            if (part[p].values)
                sl_json_double_array(f, rows[j].v, r->nthreads);
            else
                sl_json_bytes(f, rows[j].name);
        }
    }
    free(rows);
    fputs("]}", f);
    return nrows < 0 ? -ENOMEM : 0;
}

void sl_show_json_infos(FILE *f, const sl_infos *in)
{
    for (size_t i = 0; i < in->n; i++) {
        const sl_info *x = &in->v[i];
        if (i)
            fputc(',', f);
        sl_json_string(f, x->name);
        fputc(':', f);
        if (!x->known)
            fputs("null", f);
        else if (x->is_int)
            fprintf(f, "%lld", (long long)x->i);
        else
            sl_json_string(f, x->s);
    }
}

int sl_show_run_json(FILE *f, const sl_run *run, const sl_show_filter *flt, const sl_show_view *v)
{
    sl_infos origin;
    if (sl_info_origin(run, &origin))
        return -ENOMEM;
    fprintf(f, "{\"" SL_H5N_rank "\":%lld,", (long long)run->rank);
    sl_show_json_infos(f, &origin);
    sl_infos_free(&origin);
    fputs(",\"" SL_H5N_executable "\":", f);
    sl_json_bytes(f, run->executable);
    fputs(",\"" SL_H5N_command_line "\":", f);
    sl_json_bytes(f, run->command_line);
    fputs(",\"" SL_H5N_likwid_status "\":", f);
    sl_json_bytes(f, run->likwid_status);
    fputs(",\"likwid_env\":{", f);
    for (size_t i = 0; i < run->nenv; i++) {
        if (i)
            fputc(',', f);
        sl_json_bytes(f, run->env[i].name);
        fputc(':', f);
        sl_json_bytes(f, run->env[i].value);
    }
    fputs("},\n \"" SL_H5N_likwid "\":", f);
    const sl_likwid *lw = &v->lw;
    if (lw->source == SL_SOURCE_NONE) {
        fputs("null", f);
    } else {
        size_t *order;
        char ***labels;
        if (sl_show_order(lw, &order, &labels))
            return -ENOMEM;
        fprintf(f, "{\"" SL_H5N_source "\":\"%s\",\"groups\":[", sl_source_name(lw->source));
        for (size_t k = 0; k < lw->nregions;) {
            const sl_region *first = &lw->regions[order[k]];
            fprintf(f, "%s\n  {\"" SL_H5N_group_id "\":%lld,\"" SL_H5N_group_name "\":", k ? "," : "", (long long)first->group_id);
            sl_json_bytes(f, first->group_name);
            fputs(",\"" SL_H5N_regions "\":[", f);
            size_t end = sl_show_group_end(lw, order, k);
            for (size_t j = k; j < end; j++) {
                fputs(j > k ? ",\n   " : "\n   ", f);
                if (json_region(f, flt, &lw->regions[order[j]], labels[order[j]],
                                &run->likwid.regions[v->src[order[j]]], v->calls[order[j]])) {
                    sl_show_order_free(lw, order, labels);
                    return -ENOMEM;
                }
            }
            fputs("]}", f);
            k = end;
        }
        fputs("]}", f);
        sl_show_order_free(lw, order, labels);
    }
    const sl_timing *tm = &v->tm;
    fputs(",\n \"" SL_H5N_timing "\":{\"" SL_H5N_clock "\":", f);
    sl_json_bytes(f, tm->clock ? tm->clock : "");
    fprintf(f, ",\"" SL_H5N_origin_unix_ns "\":%lld,\"" SL_H5N_regions "\":[", (long long)tm->origin_unix_ns);
    struct tm_sum *s = sl_show_timing_order(tm);
    if (!s)
        return -ENOMEM;
    for (size_t i = 0; i < tm->nregions; i++) {
        const sl_timing_region *r = &tm->regions[s[i].idx];
        fputs(i ? ",\n  {\"" SL_H5N_tag "\":" : "\n  {\"" SL_H5N_tag "\":", f);
        char *tag = sl_tag_display(r->tag, r->tag_len);
        sl_json_string(f, tag ? tag : "");
        free(tag);
        struct sl_fig fig[SL_TF_N];
        sl_show_timing_figs(r, &s[i], fig);
        for (size_t k = 0; k < SL_TF_N; k++) {
            fprintf(f, ",\"%s\":", fig[k].name);
            if (fig[k].kind == SL_FIG_INT)
                fprintf(f, "%lld", fig[k].i);
            else if (fig[k].kind == SL_FIG_DBL)
                sl_json_double(f, fig[k].d);
            else
                fputs("null", f);
        }
        fputs(",\"per_thread\":{\"" SL_H5N_threads "\":", f);
        sl_json_i64_array(f, r->threads, r->nthreads);
        fputs(",\"" SL_H5N_call_counts "\":", f);
        sl_json_i64_array(f, r->call_counts, r->nthreads);
        fputs(",\"" SL_H5N_total_ns "\":", f);
        sl_json_i64_array(f, r->total_ns, r->nthreads);
        fputs(",\"" SL_H5N_min_ns "\":", f);
        sl_json_i64_array(f, r->min_ns, r->nthreads);
        fputs(",\"" SL_H5N_max_ns "\":", f);
        sl_json_i64_array(f, r->max_ns, r->nthreads);
        fputs("}}", f);
    }
    free(s);
    fputs("]}}", f);
    return 0;
}
