/* The three renderers of `scope-likwid diff`'s rows (diff.h): table, CSV
 * and JSON of one comparison. */
#include "diff.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "csv_json.h"
#include "table.h"
#include "schema.h"

/* "timing" or "likwid g<id> NAME" */
static void source_text(const sl_diff_row *r, char *buf, size_t len)
{
    if (r->group_id < 0)
        snprintf(buf, len, "%s", r->quantity[0] ? SL_H5N_timing : "");
    else
        snprintf(buf, len, "likwid g%lld%s%s", (long long)r->group_id, *r->group_name ? " " : "",
                 r->group_name);
}

static const char *num(double v, char buf[SL_NUM_BUF])
{
    return isnan(v) ? NULL : sl_fmt_value(v, buf);
}

void sl_diff_print_table(FILE *f, const sl_diff *d)
{
    int with_min = 0;
    for (size_t i = 0; i < d->n; i++)
        with_min |= !isnan(d->rows[i].base_min) || !isnan(d->rows[i].new_min);
    static const char *const head[] = {"Rank", "Region", "Source", "Quantity", "Statistic", "Base",
                                       "New", "Change", "Verdict", "Base min", "New min"};
    size_t ncols = with_min ? 11 : 9;
    sl_table t;
    sl_table_init(&t, ncols);
    if (sl_table_add_row(&t) < 0)
        goto out;
    for (size_t c = 0; c < ncols; c++)
        sl_table_set(&t, 0, c, head[c]);
    char b[SL_NUM_BUF], src[300];
    for (size_t i = 0; i < d->n; i++) {
        const sl_diff_row *r = &d->rows[i];
        long row = sl_table_add_row(&t);
        if (row < 0)
            goto out;
        size_t ro = (size_t)row;
        /* control bytes would break the table's lines */
        for (char *p = r->region; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        source_text(r, src, sizeof src);
        sl_table_set(&t, ro, 0, r->rank);
        sl_table_set(&t, ro, 1, r->region);
        sl_table_set(&t, ro, 2, src[0] ? src : NULL);
        if (r->quantity[0])
            sl_table_setf(&t, ro, 3, "%s%s%s%s", r->quantity, *r->unit ? " [" : "", r->unit,
                          *r->unit ? "]" : "");
        sl_table_set(&t, ro, 4, r->statistic[0] ? r->statistic : NULL);
        sl_table_set(&t, ro, 5, num(r->base, b));
        sl_table_set(&t, ro, 6, num(r->new_, b));
        if (!isnan(r->change_pct))
            sl_table_setf(&t, ro, 7, "%+.1f%%", r->change_pct);
        else if (r->verdict == SL_V_SLOWER || r->verdict == SL_V_HIGHER)
            sl_table_set(&t, ro, 7, "+inf");
        else if (r->verdict == SL_V_FASTER || r->verdict == SL_V_LOWER)
            sl_table_set(&t, ro, 7, "-inf");
        sl_table_set(&t, ro, 8, sl_verdict_name(r->verdict));
        if (with_min) {
            sl_table_set(&t, ro, 9, num(r->base_min, b));
            sl_table_set(&t, ro, 10, num(r->new_min, b));
        }
    }
    sl_table_print(f, &t, 1);
out:
    sl_table_free(&t);
}

static void csv_num(FILE *f, double v)
{
    char b[SL_NUM_BUF];
    fputc(',', f);
    if (!isnan(v))
        fputs(sl_fmt_exact(v, b), f);
}

void sl_diff_print_csv(FILE *f, const sl_diff *d)
{
    fputs("rank,region,source,group_id,group_name,quantity,unit,statistic,base,new,change_pct,"
          "base_min,new_min,verdict\n", f);
    for (size_t i = 0; i < d->n; i++) {
        const sl_diff_row *r = &d->rows[i];
        sl_csv_field(f, r->rank);
        fputc(',', f);
        sl_csv_field(f, r->region);
        fprintf(f, ",%s,", r->group_id >= 0 ? SL_H5N_likwid : (r->quantity[0] ? SL_H5N_timing : ""));
        if (r->group_id >= 0)
            fprintf(f, "%lld", (long long)r->group_id);
        fputc(',', f);
        sl_csv_field(f, r->group_name);
        fputc(',', f);
        sl_csv_field(f, r->quantity);
        fprintf(f, ",%s,%s", r->unit, r->statistic);
        csv_num(f, r->base);
        csv_num(f, r->new_);
        csv_num(f, r->change_pct);
        csv_num(f, r->base_min);
        csv_num(f, r->new_min);
        fprintf(f, ",%s\n", sl_verdict_name(r->verdict));
    }
}

static void json_num(FILE *f, const char *key, double v)
{
    fprintf(f, ",\"%s\":", key);
    sl_json_double(f, v);
}

void sl_diff_print_json(FILE *f, const sl_diff *d, const char *base, const char *new_,
                        double threshold, size_t slower)
{
    char b[SL_NUM_BUF];
    fputs("{\"base\":", f);
    sl_json_string(f, base);
    fputs(",\"new\":", f);
    sl_json_string(f, new_);
    fprintf(f, ",\"threshold_pct\":%s,\"slower\":%zu,\"rows\":[", sl_fmt_exact(threshold, b),
            slower);
    for (size_t i = 0; i < d->n; i++) {
        const sl_diff_row *r = &d->rows[i];
        fputs(i ? ",\n {\"" SL_H5N_rank "\":" : "\n {\"" SL_H5N_rank "\":", f);
        sl_json_string(f, r->rank);
        fputs(",\"region\":", f);
        sl_json_string(f, r->region);
        fprintf(f, ",\"" SL_H5N_source "\":\"%s\",\"" SL_H5N_group_id "\":",
                r->group_id >= 0 ? SL_H5N_likwid : (r->quantity[0] ? SL_H5N_timing : ""));
        if (r->group_id >= 0)
            fprintf(f, "%lld", (long long)r->group_id);
        else
            fputs("null", f);
        fputs(",\"" SL_H5N_group_name "\":", f);
        sl_json_string(f, r->group_name);
        fputs(",\"quantity\":", f);
        sl_json_string(f, r->quantity);
        fprintf(f, ",\"unit\":\"%s\",\"statistic\":\"%s\"", r->unit, r->statistic);
        json_num(f, "base", r->base);
        json_num(f, "new", r->new_);
        json_num(f, "change_pct", r->change_pct);
        json_num(f, "base_min", r->base_min);
        json_num(f, "new_min", r->new_min);
        fprintf(f, ",\"verdict\":\"%s\"}", sl_verdict_name(r->verdict));
    }
    fputs("]}\n", f);
}
