/* The text parts of scope-likwid plot's report (plot_header.h): headings,
 * notes and chart frames in HTML or SVG, the file's /metadata and each
 * rank's header with its origin (run_info.h: what show prints). */
#include "plot_header.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "names.h"
#include "run_info.h"
#include "schema.h"

void sl_plot_heading(sl_plot_out *o, int level, const char *text)
{
    if (o->svg) {
        o->y += level == 1 ? 24 : level == 2 ? 30 : 24;
        sl_buf_printf(o->b, "<text class=\"h%d\" x=\"4\" y=\"%.1f\">", level, o->y);
        sl_buf_text(o->b, text, strlen(text), 0);
        sl_buf_puts(o->b, "</text>\n");
        o->y += 4;
    } else {
        sl_buf_printf(o->b, "<h%d>", level);
        sl_buf_text(o->b, text, strlen(text), 0);
        sl_buf_printf(o->b, "</h%d>\n", level);
    }
}

void sl_plot_note(sl_plot_out *o, const char *text)
{
    if (o->svg) {
        o->y += 16;
        sl_buf_printf(o->b, "<text class=\"note\" x=\"4\" y=\"%.1f\">", o->y);
        sl_buf_text(o->b, text, strlen(text), 180);
        sl_buf_puts(o->b, "</text>\n");
    } else {
        sl_buf_puts(o->b, "<p class=\"note\">");
        sl_buf_text(o->b, text, strlen(text), 0);
        sl_buf_puts(o->b, "</p>\n");
    }
}

void sl_plot_chart(sl_plot_out *o, const char *cls, const sl_buf *body, double height)
{
    if (o->svg) {
        o->y += 8;
        sl_buf_printf(o->b, "<svg class=\"chart %s\" x=\"0\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" "
                            "viewBox=\"0 0 %.0f %.0f\">\n",
                      cls, o->y, SL_PLOT_WIDTH, height, SL_PLOT_WIDTH, height);
        o->y += height;
    } else {
        sl_buf_printf(o->b, "<svg class=\"chart %s\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
                      cls, SL_PLOT_WIDTH, height, SL_PLOT_WIDTH, height);
    }
    if (body->len)
        sl_buf_put(o->b, body->data, body->len);
    if (body->failed)
        o->b->failed = 1;
    sl_buf_puts(o->b, "\n</svg>\n");
}

/* ---- header -------------------------------------------------------------- */

static void attr_row(sl_plot_out *o, const char *name, const char *value)
{
    if (o->svg) {
        char line[64];
        snprintf(line, sizeof line, "%s: ", name);
        o->y += 15;
        sl_buf_printf(o->b, "<text class=\"note\" x=\"4\" y=\"%.1f\">%s", o->y, line);
        sl_buf_text(o->b, value, strlen(value), 160);
        sl_buf_puts(o->b, "</text>\n");
        return;
    }
    sl_buf_puts(o->b, "<tr><th>");
    sl_buf_text(o->b, name, strlen(name), 0);
    sl_buf_puts(o->b, "</th><td>");
    sl_buf_text(o->b, value, strlen(value), 0);
    sl_buf_puts(o->b, "</td></tr>\n");
}

/* The attribute table around rows (HTML); SVG has lines only. */
static void table_open(sl_plot_out *o)
{
    if (!o->svg)
        sl_buf_puts(o->b, "<table class=\"attrs\">\n");
}

static void table_close(sl_plot_out *o)
{
    if (!o->svg)
        sl_buf_puts(o->b, "</table>\n");
}

int sl_plot_meta_header(sl_plot_out *o, const sl_file_meta *m)
{
    sl_infos in;
    if (sl_info_meta(m, &in))
        return -ENOMEM;
    size_t known = 0;
    for (size_t i = 0; i < in.n; i++)
        known += (size_t)in.v[i].known;
    if (known) {
        sl_plot_heading(o, 2, "Run (" SL_H5N_metadata ")");
        table_open(o);
        for (size_t i = 0; i < in.n; i++)
            if (in.v[i].known)
                attr_row(o, in.v[i].name, in.v[i].s);
        table_close(o);
    }
    sl_infos_free(&in);
    return 0;
}

int sl_plot_rank_header(sl_plot_out *o, const sl_run *run)
{
    char t[160];
    char *title = sl_info_rank_title(run, NULL);
    sl_infos in;
    if (!title)
        return -ENOMEM;
    if (sl_info_origin(run, &in)) {
        free(title);
        return -ENOMEM;
    }
    sl_plot_heading(o, 2, title);
    free(title);
    table_open(o);
    /* the origin as show --csv names it; unknown fields left out */
    for (size_t i = 0; i < in.n; i++)
        if (in.v[i].known)
            attr_row(o, in.v[i].name, in.v[i].s);
    sl_infos_free(&in);
    attr_row(o, SL_H5N_executable, run->executable);
    attr_row(o, SL_H5N_command_line, run->command_line);
    attr_row(o, SL_H5N_likwid_status, run->likwid_status);
    attr_row(o, "likwid source", sl_source_name(run->likwid.source));
    attr_row(o, SL_H5N_clock, run->timing.clock ? run->timing.clock : "");
    if (run->timing.origin_unix_ns) {
        time_t s = (time_t)(run->timing.origin_unix_ns / 1000000000);
        struct tm tmv;
        char when[64] = "";
        if (gmtime_r(&s, &tmv))
            strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tmv);
        snprintf(t, sizeof t, "%lld ns (%s)", (long long)run->timing.origin_unix_ns, when);
        attr_row(o, "clock origin", t);
    }
    for (size_t i = 0; i < run->nenv; i++) {
        char name[80];
        snprintf(name, sizeof name, "%.70s", run->env[i].name);
        attr_row(o, name, run->env[i].value);
    }
    table_close(o);
    return 0;
}
