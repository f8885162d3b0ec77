/* The text parts of scope-likwid plot's report (plot_header.h): headings,
 * notes and chart frames in HTML or SVG, the file's /metadata and each
 * rank's header with its origin (what show prints of them). */
#include "plot_header.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "names.h"
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

int sl_plot_section(sl_plot_out *o, const char *heading, size_t n, const char *none,
                    const char *about)
{
    sl_plot_heading(o, 3, heading);
    sl_plot_note(o, n ? about : none);
    return n != 0;
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

/* A row of a string (stray bytes as \xHH), left out when empty: the file
 * does not know it. */
static int str_row(sl_plot_out *o, const char *name, const char *value)
{
    if (!value || !*value)
        return 0;
    char *v = sl_tag_display(value, strlen(value));
    if (!v)
        return -ENOMEM;
    attr_row(o, name, v);
    free(v);
    return 0;
}

/* A row of an integer, left out when unknown (-1 in /metadata). */
static void int_row(sl_plot_out *o, const char *name, int64_t v, int known)
{
    char t[32];
    if (!known)
        return;
    snprintf(t, sizeof t, "%lld", (long long)v);
    attr_row(o, name, t);
}

/* The same fields, names and order as show's (tools/views/run_info.c; the
 * plot may not include the views, and check_plot.py holds both to it). */
int sl_plot_meta_header(sl_plot_out *o, const sl_file_meta *m)
{
    const sl_run_meta *r = &m->run;
    int have_time = r->start_time_ns >= 0 && r->finalize_time_ns >= r->start_time_ns;
    if (!m->present || (!*m->timestamp && !*m->hostname && r->mpi_size < 0 && r->omp_num_threads < 0 &&
                        m->total_cores < 0 && r->start_time_ns < 0 && r->finalize_time_ns < 0 &&
                        !*r->working_directory && !*r->user && !*r->run_id && !r->nvars))
        return 0;
    sl_plot_heading(o, 2, "Run (" SL_H5N_metadata ")");
    table_open(o);
    int rc = str_row(o, SL_H5N_timestamp, m->timestamp);
    rc |= str_row(o, SL_H5N_hostname, m->hostname);
    int_row(o, SL_H5N_mpi_size, r->mpi_size, r->mpi_size >= 0);
    int_row(o, SL_H5N_omp_num_threads, r->omp_num_threads, r->omp_num_threads >= 0);
    int_row(o, SL_H5N_total_cores, m->total_cores, m->total_cores >= 0);
    int_row(o, SL_H5N_start_time_ns, r->start_time_ns, r->start_time_ns >= 0);
    int_row(o, SL_H5N_finalize_time_ns, r->finalize_time_ns, r->finalize_time_ns >= 0);
    int_row(o, "total_time_ns", have_time ? r->finalize_time_ns - r->start_time_ns : -1, have_time);
    rc |= str_row(o, SL_H5N_working_directory, r->working_directory);
    rc |= str_row(o, SL_H5N_user, r->user);
    rc |= str_row(o, SL_H5N_run_id, r->run_id);
    for (size_t i = 0; i < r->nvars; i++)
        rc |= str_row(o, r->vars[i].name, r->vars[i].value);
    table_close(o);
    return rc ? -ENOMEM : 0;
}

char *sl_plot_rank_title(const sl_run *run)
{
    char *g = sl_tag_display(run->group, strlen(run->group));
    char *h = sl_tag_display(run->hostname, strlen(run->hostname));
    char *f = sl_tag_display(run->merged_from, strlen(run->merged_from));
    char *fg = sl_tag_display(run->merged_from_group, strlen(run->merged_from_group));
    char *t = NULL;
    if (g && h && f && fg) {
        size_t len = strlen(g) + strlen(h) + strlen(f) + strlen(fg) + 160;
        if ((t = malloc(len))) {
            int n = snprintf(t, len, "Rank %lld (", (long long)run->rank);
            if (*g)
                n += snprintf(t + n, len - (size_t)n, "group %s, ", g);
            n += snprintf(t + n, len - (size_t)n, "mpi_rank %lld, pid %lld", (long long)run->mpi_rank,
                          (long long)run->pid);
            if (*h)
                n += snprintf(t + n, len - (size_t)n, ", host %s", h);
            if (*f || *fg)
                n += snprintf(t + n, len - (size_t)n, ", from %s:%s", f, fg);
            snprintf(t + n, len - (size_t)n, ")");
        }
    }
    free(g);
    free(h);
    free(f);
    free(fg);
    return t;
}

int sl_plot_rank_header(sl_plot_out *o, const sl_run *run)
{
    char t[160];
    char *title = sl_plot_rank_title(run);
    if (!title)
        return -ENOMEM;
    sl_plot_heading(o, 2, title);
    free(title);
    table_open(o);
    /* the origin as show --csv names it; unknown strings left out */
    int rc = str_row(o, "rank_group", run->group);
    int_row(o, SL_H5N_mpi_rank, run->mpi_rank, 1);
    int_row(o, SL_H5N_pid, run->pid, 1);
    rc |= str_row(o, SL_H5N_hostname, run->hostname);
    rc |= str_row(o, SL_H5N_merged_from, run->merged_from);
    rc |= str_row(o, SL_H5N_merged_from_group, run->merged_from_group);
    if (rc)
        return -ENOMEM;
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
