/* /metadata (format 2): the run's metadata as scope-profiler defines it
 * (docs/FORMAT.md, "/metadata"), written from a run and read back. */
#include "h5_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "h5read.h"
#include "user_name.h"

/* ISO-8601 UTC with microseconds and "+00:00", as Python's
 * datetime.isoformat() writes it (and fromisoformat reads it before 3.11,
 * which "Z" is not). "" when the run start is not known on a real clock. */
void sl_h5_timestamp(char *buf, size_t len, const sl_run *run)
{
    buf[0] = '\0';
    int64_t start = run->meta.start_time_ns;
    if (start < 0 || run->timing.origin_unix_ns <= 0 || !run->timing.clock ||
        strcmp(run->timing.clock, "CLOCK_MONOTONIC") != 0 ||
        start > INT64_MAX - run->timing.origin_unix_ns)
        return;
    int64_t ns = run->timing.origin_unix_ns + start;
    time_t s = (time_t)(ns / 1000000000);
    struct tm tm;
    if (!gmtime_r(&s, &tm))
        return;
    char day[32];
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "%s.%06ld+00:00", day, (long)(ns % 1000000000 / 1000));
}

/* SLURM_* attributes at most (Slurm sets 40 to 60). */
#define SL_H5_META_VARS 1024

static int put_i64(sl_h5w *w, hid_t g, const char *name, int64_t v)
{
    return v > 0 || (v == 0 && strcmp(name, SL_H5N_start_time_ns) == 0) ? sl_h5w_i64(w, g, name, v)
                                                                        : 0;
}

static int put_str(sl_h5w *w, hid_t g, const char *name, const char *s)
{
    return s && *s ? sl_h5w_str(w, g, name, s) : 0;
}

int sl_h5w_meta(sl_h5w *w, hid_t file, const sl_run *run)
{
    const sl_run_meta *m = &run->meta;
    hid_t g = sl_h5w_group(w, file, SL_H5N_metadata, 0);
    if (g < 0)
        return -EIO;
    char ts[64];
    sl_h5_timestamp(ts, sizeof ts, run);
    int64_t cores = m->mpi_size > 0 && m->omp_num_threads > 0 &&
                            m->mpi_size <= INT64_MAX / m->omp_num_threads
                        ? m->mpi_size * m->omp_num_threads
                        : -1;
    /* the shim names the user only for a %u: else its uid, named here */
    char *named = !m->user[0] && m->uid >= 0 ? sl_user_name((uid_t)m->uid) : NULL;
    const struct {
        const char *name;
        int is_str;
        const char *s;
        int64_t v;
    } put[] = {
        {SL_H5N_hostname, 1, run->hostname, 0},
        {SL_H5N_timestamp, 1, ts, 0},
        {SL_H5N_mpi_size, 0, NULL, m->mpi_size},
        {SL_H5N_omp_num_threads, 0, NULL, m->omp_num_threads},
        {SL_H5N_total_cores, 0, NULL, cores},
        {SL_H5N_start_time_ns, 0, NULL, m->start_time_ns},
        {SL_H5N_finalize_time_ns, 0, NULL, m->finalize_time_ns},
        {SL_H5N_working_directory, 1, m->working_directory, 0},
        {SL_H5N_user, 1, named ? named : m->user, 0},
        {SL_H5N_run_id, 1, m->run_id, 0},
    };
    int rc = 0;
    for (size_t i = 0; !rc && i < sizeof put / sizeof put[0]; i++)
        rc = put[i].is_str ? put_str(w, g, put[i].name, put[i].s)
                           : put_i64(w, g, put[i].name, put[i].v);
    free(named);
    /* SLURM_* variables under their own names, the first SL_H5_META_VARS
     * of them (a bounded header: docs/FORMAT.md); nothing else goes here */
    for (size_t i = 0, kept = 0; !rc && i < m->nvars && kept < SL_H5_META_VARS; i++) {
        const char *n = m->vars[i].name;
        if (!n || strncmp(n, SL_H5N_SLURM_, strlen(SL_H5N_SLURM_)) != 0 || strchr(n, '/') ||
            H5Aexists(g, n) != 0) {
            H5Eclear2(H5E_DEFAULT);
            continue;
        }
        rc = sl_h5w_str(w, g, n, m->vars[i].value);
        kept++;
    }
    H5Gclose(g);
    return rc;
}

/* ---- reading ---- */

typedef struct var_ctx {
    sl_h5r *r;
    sl_run_meta *m;
    int rc;
} var_ctx;

static herr_t slurm_attr(hid_t g, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    var_ctx *c = data;
    if (strncmp(name, SL_H5N_SLURM_, strlen(SL_H5N_SLURM_)) != 0)
        return 0;
    char *v = NULL;
    c->rc = sl_h5r_match_str(c->r, g, "/" SL_H5N_metadata, SL_H5_FIELD(META_SLURM), name, &v);
    if (!c->rc)
        c->rc = sl_run_meta_add_var(c->m, name, v);
    free(v);
    return c->rc ? -1 : 0;
}

/* The one derived field of /metadata: its SLURM_* attributes. */
static int meta_fn(sl_h5r *r, hid_t g, const char *path, sl_h5_fid id, void *elem, void *ctx)
{
    (void)ctx;
    if (id != SL_H5F_META_SLURM)
        return 0;
    var_ctx c = {r, &((sl_file_meta *)elem)->run, 0};
    hsize_t idx = 0;
    herr_t it = H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, slurm_attr, &c);
    if (!c.rc && it < 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(r->diag, r->file, 0, "%s: cannot list attributes: expected readable "
                    "attributes", path);
        return -EINVAL;
    }
    return c.rc;
}

void sl_file_meta_free(sl_file_meta *m)
{
    free(m->hostname);
    free(m->timestamp);
    sl_run_meta_free(&m->run);
    memset(m, 0, sizeof *m);
}

int sl_h5r_meta(sl_h5r *r, hid_t file, sl_file_meta *out)
{
    memset(out, 0, sizeof *out);
    out->total_cores = -1;
    out->hostname = strdup("");
    out->timestamp = strdup("");
    if (!out->hostname || !out->timestamp || sl_run_meta_init(&out->run) < 0)
        return -ENOMEM;
    htri_t has = r->version >= 2 ? H5Lexists(file, SL_H5N_metadata, H5P_DEFAULT) : 0;
    if (has <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    const char *path = "/" SL_H5N_metadata;
    hid_t g = H5Oopen(file, SL_H5N_metadata, H5P_DEFAULT);
    if (g < 0 || H5Iget_type(g) != H5I_GROUP) {
        if (g >= 0)
            H5Oclose(g);
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(r->diag, r->file, 0, "%s: not a group: expected a group of attributes", path);
        return -EINVAL;
    }
    out->present = 1;
    int rc = sl_h5r_rows_attrs(r, g, path, SL_H5O_META, out, meta_fn, NULL, NULL);
    H5Oclose(g);
    return rc;
}
