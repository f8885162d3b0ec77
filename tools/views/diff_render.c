/* The three renderers of `scope-likwid diff`'s rows (diff.h): table, CSV
 * and JSON of one comparison. */
#include "diff.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "csv_json.h"
#include "table.h"
#include "schema.h"

const char *const sl_diff_col_head[SL_DIFF_NCOLS] = {
#define X(id, head) head,
    SL_DIFF_COLUMNS(X)
#undef X
};

/* "timing" or "likwid g<id> NAME" */
static void source_text(const sl_diff_row *r, char *buf, size_t len)
{
    if (r->group_id < 0)
        snprintf(buf, len, "%s", r->quantity[0] ? SL_H5N_timing : "");
    else
        snprintf(buf, len, "likwid g%lld%s%s", (long long)r->group_id, *r->group_name ? " " : "",
                 r->group_name);
}

static const char *num(double v, char buf[SL_DIFF_CELL_BUF])
{
    return isnan(v) ? "" : sl_fmt_value(v, buf);
}

/* The change; an infinite one (from 0) by its sign. */
static const char *change_text(const sl_diff_row *r, char buf[SL_DIFF_CELL_BUF])
{
    if (!isnan(r->change_pct)) {
        snprintf(buf, SL_DIFF_CELL_BUF, "%+.1f%%", r->change_pct);
        return buf;
    }
    if (r->verdict == SL_V_SLOWER || r->verdict == SL_V_HIGHER)
        return "+inf";
    if (r->verdict == SL_V_FASTER || r->verdict == SL_V_LOWER)
        return "-inf";
    return "";
}

const char *sl_diff_cell(const sl_diff_row *r, sl_diff_col col, char buf[SL_DIFF_CELL_BUF])
{
    switch (col) {
    case SL_DIFF_COL_RANK: return r->rank;
    case SL_DIFF_COL_REGION: return r->region;
    case SL_DIFF_COL_SOURCE: source_text(r, buf, SL_DIFF_CELL_BUF); return buf;
    case SL_DIFF_COL_QUANTITY:
        if (!r->quantity[0])
            return "";
        snprintf(buf, SL_DIFF_CELL_BUF, "%s%s%s%s", r->quantity, *r->unit ? " [" : "", r->unit,
                 *r->unit ? "]" : "");
        return buf;
    case SL_DIFF_COL_STATISTIC: return r->statistic;
    case SL_DIFF_COL_BASE: return num(r->base, buf);
    case SL_DIFF_COL_NEW: return num(r->new_, buf);
    case SL_DIFF_COL_CHANGE: return change_text(r, buf);
    case SL_DIFF_COL_VERDICT: return sl_verdict_name(r->verdict);
    case SL_DIFF_COL_GATE: return sl_gate_name(r->gate);
    case SL_DIFF_COL_BASE_MIN: return num(r->base_min, buf);
    case SL_DIFF_COL_NEW_MIN: return num(r->new_min, buf);
    case SL_DIFF_NCOLS: break;
    }
    return "";
}

int sl_diff_with_min(const sl_diff *d)
{
    for (size_t i = 0; i < d->n; i++)
        if (!isnan(d->rows[i].base_min) || !isnan(d->rows[i].new_min))
            return 1;
    return 0;
}

void sl_diff_print_table(FILE *f, const sl_diff *d)
{
    size_t ncols = sl_diff_with_min(d) ? SL_DIFF_NCOLS : SL_DIFF_COL_BASE_MIN;
    sl_table t;
    sl_table_init(&t, ncols);
    if (sl_table_add_row(&t) < 0)
        goto out;
    for (size_t c = 0; c < ncols; c++)
        sl_table_set(&t, 0, c, sl_diff_col_head[c]);
    char b[SL_DIFF_CELL_BUF];
    for (size_t i = 0; i < d->n; i++) {
        const sl_diff_row *r = &d->rows[i];
        long row = sl_table_add_row(&t);
        if (row < 0)
            goto out;
        /* control bytes would break the table's lines */
        for (char *p = r->region; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        for (size_t c = 0; c < ncols; c++) {
            const char *v = sl_diff_cell(r, (sl_diff_col)c, b);
            sl_table_set(&t, (size_t)row, c, *v ? v : NULL);
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
          "base_min,new_min,verdict,gate\n", f);
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
        fprintf(f, ",%s,%s\n", sl_verdict_name(r->verdict), sl_gate_name(r->gate));
    }
}

static void json_num(FILE *f, const char *key, double v)
{
    fprintf(f, ",\"%s\":", key);
    sl_json_double(f, v);
}

void sl_diff_print_json(FILE *f, const sl_diff *d, const char *base, const char *new_,
                        const sl_diff_opts *o)
{
    char b[SL_NUM_BUF];
    fputs("{\"base\":", f);
    sl_json_string(f, base);
    fputs(",\"new\":", f);
    sl_json_string(f, new_);
    fprintf(f, ",\"threshold_pct\":%s,\"allow_missing\":%s,\"slower\":%zu,\"worse\":%zu,"
               "\"missing\":%zu,\"failed\":%zu,\"warnings\":[",
            sl_fmt_exact(o->threshold, b), o->allow_missing ? "true" : "false", d->slower, d->worse,
            d->missing, d->failed);
    for (size_t i = 0; i < d->nwarnings; i++) {
        if (i)
            fputc(',', f);
        sl_json_bytes(f, d->warnings[i]);
    }
    fputs("],\"rows\":[", f);
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
        fprintf(f, ",\"verdict\":\"%s\",\"gate\":\"%s\"}", sl_verdict_name(r->verdict),
                sl_gate_name(r->gate));
    }
    fputs("]}\n", f);
}
