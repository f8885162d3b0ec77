/* `scope-likwid show --json`: per rank the run's attributes, the LIKWID
 * groups with their regions, and the timing regions. */
#include "show_rows.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_json.h"
#include "names.h"

/* A region of the view; orig = the file's region (its CPUs when aggregated). */
static void json_region(FILE *f, const sl_show_filter *flt, const sl_region *r, char **labels,
                        const sl_region *orig, double calls)
{
    int agg = flt->threads != SL_THREADS_ALL;
    fputs("{\"tag\":", f);
    char *tag = sl_tag_display(r->tag, r->tag_len);
    sl_json_string(f, tag ? tag : "");
    free(tag);
    fprintf(f, ",\"group_id\":%lld,\"group_name\":", (long long)r->group_id);
    sl_json_bytes(f, r->group_name);
    fprintf(f, ",\"source\":\"%s\",", sl_source_name(r->source));
    if (agg)
        fprintf(f, "\"thread_aggregate\":\"%s\",", sl_threads_name(flt->threads));
    fputs("\"cpus\":", f);
    sl_json_i64_array(f, orig->cpus, orig->nthreads);
    fputs(",\"call_counts\":", f);
    if (agg)
        sl_json_double_array(f, &calls, 1);
    else
        sl_json_i64_array(f, r->call_counts, r->nthreads);
    fputs(",\"times\":", f);
    sl_json_double_array(f, r->times, r->nthreads);
    /* --metric: only the named rows */
    size_t n = 0;
    fputs(",\"event_labels\":[", f);
    for (size_t e = 0; e < r->nevents; e++)
        if (sl_filter_row(flt, labels[e])) {
            fputs(n++ ? "," : "", f);
            sl_json_bytes(f, labels[e]);
        }
    fputs("],\"events\":[", f);
    n = 0;
    for (size_t e = 0; e < r->nevents; e++)
        if (sl_filter_row(flt, labels[e])) {
            fputs(n++ ? "," : "", f);
            sl_json_double_array(f, r->events + e * r->nthreads, r->nthreads);
        }
    fputs("],\"metric_names\":[", f);
    n = 0;
    for (size_t m = 0; m < r->nmetrics; m++)
        if (sl_filter_row(flt, sl_show_metric_name(r, m))) {
            fputs(n++ ? "," : "", f);
            sl_json_bytes(f, sl_show_metric_name(r, m));
        }
    fputs("],\"metrics\":[", f);
    n = 0;
    for (size_t m = 0; m < r->nmetrics; m++)
        if (sl_filter_row(flt, sl_show_metric_name(r, m))) {
            fputs(n++ ? "," : "", f);
            sl_json_double_array(f, r->metrics + m * r->nthreads, r->nthreads);
        }
    fputs("]}", f);
}

int sl_show_run_json(FILE *f, const sl_run *run, const sl_show_filter *flt, const sl_show_view *v)
{
    fprintf(f, "{\"rank\":%lld,\"mpi_rank\":%lld,\"pid\":%lld,\"hostname\":", (long long)run->rank,
            (long long)run->mpi_rank, (long long)run->pid);
    sl_json_bytes(f, run->hostname);
    fputs(",\"executable\":", f);
    sl_json_bytes(f, run->executable);
    fputs(",\"command_line\":", f);
    sl_json_bytes(f, run->command_line);
    fputs(",\"likwid_status\":", f);
    sl_json_bytes(f, run->likwid_status);
    fputs(",\"likwid_env\":{", f);
    for (size_t i = 0; i < run->nenv; i++) {
        if (i)
            fputc(',', f);
        sl_json_bytes(f, run->env[i].name);
        fputc(':', f);
        sl_json_bytes(f, run->env[i].value);
    }
    fputs("},\n \"likwid\":", f);
    const sl_likwid *lw = &v->lw;
    if (lw->source == SL_SOURCE_NONE) {
        fputs("null", f);
    } else {
        size_t *order;
        char ***labels;
        if (sl_show_order(lw, &order, &labels))
            return -ENOMEM;
        fprintf(f, "{\"source\":\"%s\",\"groups\":[", sl_source_name(lw->source));
        for (size_t k = 0; k < lw->nregions;) {
            const sl_region *first = &lw->regions[order[k]];
            fprintf(f, "%s\n  {\"group_id\":%lld,\"group_name\":", k ? "," : "", (long long)first->group_id);
            sl_json_bytes(f, first->group_name);
            fputs(",\"regions\":[", f);
            size_t end = sl_show_group_end(lw, order, k);
            for (size_t j = k; j < end; j++) {
                fputs(j > k ? ",\n   " : "\n   ", f);
                json_region(f, flt, &lw->regions[order[j]], labels[order[j]],
                            &run->likwid.regions[v->src[order[j]]], v->calls[order[j]]);
            }
            fputs("]}", f);
            k = end;
        }
        fputs("]}", f);
        sl_show_order_free(lw, order, labels);
    }
    const sl_timing *tm = &v->tm;
    fputs(",\n \"timing\":{\"clock\":", f);
    sl_json_bytes(f, tm->clock ? tm->clock : "");
    fprintf(f, ",\"origin_unix_ns\":%lld,\"regions\":[", (long long)tm->origin_unix_ns);
    struct tm_sum *s = sl_show_timing_order(tm);
    if (!s)
        return -ENOMEM;
    for (size_t i = 0; i < tm->nregions; i++) {
        const sl_timing_region *r = &tm->regions[s[i].idx];
        fputs(i ? ",\n  {\"tag\":" : "\n  {\"tag\":", f);
        char *tag = sl_tag_display(r->tag, r->tag_len);
        sl_json_string(f, tag ? tag : "");
        free(tag);
        fprintf(f, ",\"threads\":%zu,\"calls\":%lld,\"total_ns\":%lld,\"mean_ns\":", r->nthreads,
                (long long)s[i].calls, (long long)s[i].total);
        sl_json_double(f, s[i].calls > 0 ? (double)s[i].total / (double)s[i].calls : NAN);
        if (s[i].have_minmax)
            fprintf(f, ",\"min_ns\":%lld,\"max_ns\":%lld", (long long)s[i].min, (long long)s[i].max);
        else
            fputs(",\"min_ns\":null,\"max_ns\":null", f);
        fprintf(f, ",\"dropped_calls\":%lld,\"open_at_close\":%lld,\"unmatched_stops\":%lld,"
                   "\"nested_starts\":%lld,\"per_thread\":{\"threads\":",
                (long long)r->dropped_calls, (long long)r->open_at_close,
                (long long)r->unmatched_stops, (long long)r->nested_starts);
        sl_json_i64_array(f, r->threads, r->nthreads);
        fputs(",\"call_counts\":", f);
        sl_json_i64_array(f, r->call_counts, r->nthreads);
        fputs(",\"total_ns\":", f);
        sl_json_i64_array(f, r->total_ns, r->nthreads);
        fputs(",\"min_ns\":", f);
        sl_json_i64_array(f, r->min_ns, r->nthreads);
        fputs(",\"max_ns\":", f);
        sl_json_i64_array(f, r->max_ns, r->nthreads);
        fputs("}}", f);
    }
    free(s);
    fputs("]}}", f);
    return 0;
}
