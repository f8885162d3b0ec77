/* `scope-likwid show --csv`: one line per value,
 * rank,section,group_id,group_name,tag,thread,cpu,row,value. */
#include "show.h"
#include "show_rows.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csv_json.h"
#include "names.h"
#include "run_info.h"
#include "table.h"
#include "schema.h"

static void csv_line(FILE *f, long long rank, const char *section, const char *group_id,
                     const char *group_name, const char *tag, const char *thread, const char *cpu,
                     const char *row, const char *value)
{
    fprintf(f, "%lld,%s,", rank, section);
    sl_csv_field(f, group_id);
    fputc(',', f);
    sl_csv_field(f, group_name);
    fputc(',', f);
    sl_csv_field(f, tag);
    fprintf(f, ",%s,%s,", thread, cpu);
    sl_csv_field(f, row);
    fputc(',', f);
    sl_csv_field(f, value);
    fputc('\n', f);
}

static void csv_run_attr(FILE *f, const sl_run *run, const char *name, const char *value)
{
    char *v = sl_tag_display(value, strlen(value));
    csv_line(f, run->rank, "run", "", "", "", "", "", name, v ? v : "");
    free(v);
}

int sl_show_run_csv(FILE *f, const sl_run *run, const sl_show_filter *flt, const sl_show_view *v,
                    const sl_infos *meta)
{
    char b[SL_NUM_BUF], th[32], cpu[32], gid[32];
    long long rank = run->rank;
    sl_infos origin;
    if (sl_info_origin(run, &origin))
        return -ENOMEM;
    for (size_t i = 0; i < origin.n; i++)      /* an unknown number: no value */
        csv_line(f, rank, "run", "", "", "", "", "", origin.v[i].name,
                 origin.v[i].known || !origin.v[i].is_int ? origin.v[i].s : "");
    sl_infos_free(&origin);
    csv_run_attr(f, run, SL_H5N_executable, run->executable);
    csv_run_attr(f, run, SL_H5N_command_line, run->command_line);
    csv_run_attr(f, run, SL_H5N_likwid_status, run->likwid_status);
    csv_run_attr(f, run, "likwid_source", sl_source_name(run->likwid.source));
    for (size_t i = 0; i < run->nenv; i++) {
        char name[300];
        snprintf(name, sizeof name, "env %s", run->env[i].name);
        csv_run_attr(f, run, name, run->env[i].value);
    }
    csv_run_attr(f, run, SL_H5N_clock, run->timing.clock);
    snprintf(b, sizeof b, "%lld", (long long)run->timing.origin_unix_ns);
    csv_run_attr(f, run, SL_H5N_origin_unix_ns, b);
    /* the file's /metadata, the same on every rank: known fields only */
    for (size_t i = 0; meta && i < meta->n; i++)
        if (meta->v[i].known) {
            char name[300];
            snprintf(name, sizeof name, SL_H5N_metadata " %s", meta->v[i].name);
            csv_line(f, rank, "run", "", "", "", "", "", name, meta->v[i].s);
        }

    const sl_likwid *lw = &v->lw;
    int agg = flt->threads != SL_THREADS_ALL;
    size_t *order;
    char ***labels;
    if (sl_show_order(lw, &order, &labels))
        return -ENOMEM;
    for (size_t k = 0; k < lw->nregions; k++) {
        const sl_region *r = &lw->regions[order[k]];
        char *tag = sl_tag_display(r->tag, r->tag_len);
        char *gname = sl_tag_display(r->group_name, strlen(r->group_name));
        struct sl_value_row *rows;
        long nrows = sl_show_value_rows(r, labels[order[k]], flt, &rows);
        snprintf(gid, sizeof gid, "%lld", (long long)r->group_id);
        for (size_t t = 0; t < r->nthreads && tag && gname && nrows >= 0; t++) {
            /* aggregated: thread = sum|mean|max, no single cpu */
            snprintf(th, sizeof th, "%s", agg ? sl_threads_name(flt->threads) : "");
            if (!agg)
                snprintf(th, sizeof th, "%zu", t);
            cpu[0] = '\0';
            if (!agg)
                snprintf(cpu, sizeof cpu, "%lld", (long long)r->cpus[t]);
            for (long j = 0; j < nrows; j++) {
                const char *val = b;    /* sl_fmt_exact may answer a constant */
                if (rows[j].kind == SL_ROW_METRIC && sl_filter_nosum(flt, rows[j].name))
                    val = "";
                else if (rows[j].kind != SL_ROW_CALLS)
                    val = sl_fmt_exact(rows[j].v[t], b);
                else if (agg)
                    val = sl_fmt_exact(v->calls[order[k]], b);
                else
                    snprintf(b, sizeof b, "%lld", (long long)r->call_counts[t]);
                csv_line(f, rank, SL_H5N_likwid, gid, gname, tag, th, cpu, rows[j].name, val);
            }
        }
        free(rows);
        free(tag);
        free(gname);
        if (nrows < 0) {
            sl_show_order_free(lw, order, labels);
            return -ENOMEM;
        }
    }
    sl_show_order_free(lw, order, labels);

    const sl_timing *tm = &v->tm;
    struct tm_sum *s = sl_show_timing_order(tm);
    if (!s)
        return -ENOMEM;
    for (size_t i = 0; i < tm->nregions; i++) {
        const sl_timing_region *r = &tm->regions[s[i].idx];
        char *tag = sl_tag_display(r->tag, r->tag_len);
        if (!tag)
            continue;
        struct sl_fig fig[SL_TF_N];
        sl_show_timing_figs(r, &s[i], fig);
        for (size_t k = 0; k < SL_TF_N; k++) {
            const char *val = b;
            if (fig[k].kind == SL_FIG_INT)
                snprintf(b, sizeof b, "%lld", fig[k].i);
            else if (fig[k].kind == SL_FIG_DBL)
                val = sl_fmt_exact(fig[k].d, b);
            else
                b[0] = '\0';
            csv_line(f, rank, SL_H5N_timing, "", "", tag, "", "", fig[k].name, val);
        }
        for (size_t t = 0; t < r->nthreads; t++) {
            snprintf(th, sizeof th, "%lld", (long long)r->threads[t]);
#define PLINE(rowname, v) do { snprintf(b, sizeof b, "%lld", (long long)(v)); \
        csv_line(f, rank, SL_H5N_timing, "", "", tag, th, "", rowname, b); } while (0)
            PLINE("calls", r->call_counts[t]);
            PLINE(SL_H5N_total_ns, r->total_ns[t]);
            PLINE(SL_H5N_min_ns, r->min_ns[t]);
            PLINE(SL_H5N_max_ns, r->max_ns[t]);
#undef PLINE
        }
        free(tag);
    }
    free(s);
    return 0;
}

