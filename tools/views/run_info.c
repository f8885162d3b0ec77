/* The origin of a run and the file's /metadata as named values, and the
 * one-line titles the table and the plot print of them (run_info.h). */
#include "run_info.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "schema.h"
#include "vec.h"

void sl_infos_free(sl_infos *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->v[i].s);
    free(in->v);
    memset(in, 0, sizeof *in);
}

static int add(sl_infos *in, const char *name, int known, int is_int, int64_t i, const char *s)
{
    if (SL_VEC_RESERVE(in->v, in->cap, in->n, 1) < 0)
        return -ENOMEM;
    char num[32];
    if (is_int) {
        snprintf(num, sizeof num, "%lld", (long long)i);
        s = num;
    }
    sl_info *x = &in->v[in->n];
    *x = (sl_info){.name = name, .known = known, .is_int = is_int, .i = i};
    x->s = sl_tag_display(s ? s : "", s ? strlen(s) : 0);
    if (!x->s)
        return -ENOMEM;
    in->n++;
    return 0;
}

static int add_str(sl_infos *in, const char *name, const char *s)
{
    return add(in, name, s && *s, 0, 0, s);
}

/* -1 is "unknown" for the metadata's counts and times (FORMAT.md) */
static int add_int(sl_infos *in, const char *name, int64_t v, int known)
{
    return add(in, name, known, 1, v, NULL);
}

int sl_info_origin(const sl_run *run, sl_infos *out)
{
    memset(out, 0, sizeof *out);
    int rc = add_str(out, "rank_group", run->group);
    if (!rc)
        rc = add_int(out, SL_H5N_mpi_rank, run->mpi_rank, 1);
    if (!rc)
        rc = add_int(out, SL_H5N_pid, run->pid, 1);
    if (!rc)
        rc = add_str(out, SL_H5N_hostname, run->hostname);
    /* where it ran (FORMAT.md's provenance attrs), "" / 0 when unknown */
    if (!rc)
        rc = add_str(out, SL_H5N_cpu_model, run->cpu_model);
    if (!rc)
        rc = add_str(out, SL_H5N_likwid_version, run->likwid_version);
    if (!rc)
        rc = add_str(out, SL_H5N_kernel_release, run->kernel_release);
    if (!rc)
        rc = add_str(out, SL_H5N_clock_source, run->clock_source);
    if (!rc)
        rc = add_int(out, SL_H5N_tsc_hz, run->tsc_hz, run->tsc_hz > 0);
    if (!rc)
        rc = add_str(out, SL_H5N_merged_from, run->merged_from);
    if (!rc)
        rc = add_str(out, SL_H5N_merged_from_group, run->merged_from_group);
    if (rc)
        sl_infos_free(out);
    return rc;
}

int sl_info_meta(const sl_file_meta *m, sl_infos *out)
{
    memset(out, 0, sizeof *out);
    if (!m->present)
        return 0;
    const sl_run_meta *r = &m->run;
    int have_time = r->start_time_ns >= 0 && r->finalize_time_ns >= r->start_time_ns;
    int rc = add_str(out, SL_H5N_timestamp, m->timestamp);
    rc = rc ? rc : add_str(out, SL_H5N_hostname, m->hostname);
    rc = rc ? rc : add_int(out, SL_H5N_mpi_size, r->mpi_size, r->mpi_size >= 0);
    rc = rc ? rc : add_int(out, SL_H5N_omp_num_threads, r->omp_num_threads, r->omp_num_threads >= 0);
    rc = rc ? rc : add_int(out, SL_H5N_total_cores, m->total_cores, m->total_cores >= 0);
    rc = rc ? rc : add_int(out, SL_H5N_start_time_ns, r->start_time_ns, r->start_time_ns >= 0);
    rc = rc ? rc : add_int(out, SL_H5N_finalize_time_ns, r->finalize_time_ns, r->finalize_time_ns >= 0);
    rc = rc ? rc : add_int(out, "total_time_ns", have_time ? r->finalize_time_ns - r->start_time_ns : -1,
                           have_time);
    rc = rc ? rc : add_str(out, SL_H5N_working_directory, r->working_directory);
    rc = rc ? rc : add_str(out, SL_H5N_user, r->user);
    rc = rc ? rc : add_str(out, SL_H5N_run_id, r->run_id);
    for (size_t i = 0; !rc && i < r->nvars; i++)
        rc = add(out, r->vars[i].name, 1, 0, 0, r->vars[i].value);
    if (rc)
        sl_infos_free(out);
    return rc;
}

const sl_info *sl_info_get(const sl_infos *in, const char *name)
{
    for (size_t i = 0; i < in->n; i++)
        if (in->v[i].known && !strcmp(in->v[i].name, name))
            return &in->v[i];
    return NULL;
}

/* Closes the memstream; the text with control bytes as '?', or NULL. */
static char *finish(FILE *f, char **bufp)
{
    /* the stream's buffer is only final after fclose */
    int bad = fclose(f) != 0;
    char *buf = *bufp;
    if (bad || !buf) {
        free(buf);
        return NULL;
    }
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return buf;
}

char *sl_info_rank_title(const sl_run *run, const char *extra)
{
    sl_infos in;
    if (sl_info_origin(run, &in))
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        sl_infos_free(&in);
        return NULL;
    }
    const sl_info *g = sl_info_get(&in, "rank_group"), *h = sl_info_get(&in, SL_H5N_hostname);
    const sl_info *cpu = sl_info_get(&in, SL_H5N_cpu_model);
    const sl_info *lv = sl_info_get(&in, SL_H5N_likwid_version);
    const sl_info *mf = sl_info_get(&in, SL_H5N_merged_from);
    const sl_info *mg = sl_info_get(&in, SL_H5N_merged_from_group);
    fprintf(f, "Rank %lld (", (long long)run->rank);
    if (g)
        fprintf(f, "group %s, ", g->s);
    fprintf(f, "mpi_rank %lld, pid %lld", (long long)run->mpi_rank, (long long)run->pid);
    if (h)
        fprintf(f, ", host %s", h->s);
    if (cpu)
        fprintf(f, ", cpu %s", cpu->s);
    if (lv)
        fprintf(f, ", LIKWID %s", lv->s);
    if (mf || mg)
        fprintf(f, ", from %s:%s", mf ? mf->s : "", mg ? mg->s : "");
    if (extra && *extra)
        fprintf(f, ", %s", extra);
    fputc(')', f);
    sl_infos_free(&in);
    return finish(f, &buf);
}

char *sl_info_run_title(const sl_file_meta *m, int *none)
{
    sl_infos in;
    *none = 0;
    if (sl_info_meta(m, &in))
        return NULL;
    /* the table's choice: what says when, where and how big the run was */
    static const struct { const char *name, *label; } shown[] = {
        {SL_H5N_timestamp, SL_H5N_timestamp},
        {SL_H5N_hostname, "host"},
        {SL_H5N_mpi_size, SL_H5N_mpi_size},
        {SL_H5N_omp_num_threads, SL_H5N_omp_num_threads},
        {"total_time_ns", "total time"},
        {SL_H5N_working_directory, "working directory"},
        {SL_H5N_user, SL_H5N_user},
        {SL_H5N_SLURM_ "JOB_ID", SL_H5N_SLURM_ "JOB_ID"},
    };
    char *buf = NULL;
    size_t len = 0, k = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        sl_infos_free(&in);
        return NULL;
    }
    fputs("Run (", f);
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
        const sl_info *x = sl_info_get(&in, shown[i].name);
        if (!x)
            continue;
        fprintf(f, "%s%s ", k++ ? ", " : "", shown[i].label);
        if (!strcmp(shown[i].name, "total_time_ns"))
            fprintf(f, "%.6f s", (double)x->i / 1e9);
        else
            fputs(x->s, f);
    }
    fputc(')', f);
    sl_infos_free(&in);
    char *s = finish(f, &buf);
    if (s && !k) {
        free(s);
        *none = 1;
        return NULL;
    }
    return s;
}
