/* The journal's metadata record (journal.h, SL_JRN_META), read back: the
 * run's /metadata as the shim knew it at Init, and the batch job a
 * journal's process ran in (for "may it still run"). Bounded: at most
 * SL_JRN_META_MAX bytes of strings are looked at, whatever the record says;
 * a string without '=' or without its NUL is left out. */
#include "journal_meta.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse_int.h"

/* The strings of the first record when it is the metadata record; NULL
 * and *len 0 when there is none (an older journal, or a damaged one). */
static const char *meta_strings(const jfile *j, size_t *len)
{
    *len = 0;
    size_t o = SL_JRN_HEADER_BYTES;
    if (j->h->used < o + sizeof(sl_jrn_rec) + sizeof(sl_jrn_meta) || j->size < j->h->used)
        return NULL;
    const sl_jrn_rec *rec = (const void *)(j->p + o);
    if (rec->kind != SL_JRN_META || rec->bytes > j->h->used - o ||
        rec->bytes < sizeof *rec + sizeof(sl_jrn_meta))
        return NULL;
    const sl_jrn_meta *m = (const void *)(j->p + o + sizeof *rec);
    size_t room = (size_t)rec->bytes - sizeof *rec - sizeof *m;
    size_t n = m->bytes < room ? m->bytes : room;
    *len = n < SL_JRN_META_MAX ? n : SL_JRN_META_MAX;
    return (const char *)(m + 1);
}

/* Calls fn for each NAME=VALUE string, with NAME and VALUE split (name
 * copied into a buffer of its own). */
typedef void (*meta_fn)(void *ctx, const char *name, const char *value);

static void each(const jfile *j, meta_fn fn, void *ctx)
{
    size_t len;
    const char *s = meta_strings(j, &len);
    char name[256];
    for (size_t at = 0; s && at < len;) {
        const char *str = s + at;
        const char *nul = memchr(str, '\0', len - at);
        if (!nul)
            break;                  /* cut short: the rest is not sure */
        at = (size_t)(nul - s) + 1;
        const char *eq = strchr(str, '=');
        if (!eq || eq == str || (size_t)(eq - str) >= sizeof name)
            continue;
        memcpy(name, str, (size_t)(eq - str));
        name[eq - str] = '\0';
        fn(ctx, name, eq + 1);
    }
}

static void copy_to(char *dst, size_t cap, const char *v)
{
    size_t n = strnlen(v, cap - 1);
    memcpy(dst, v, n);
    dst[n] = '\0';
}

static void info_var(void *ctx, const char *name, const char *value)
{
    sl_jrn_info *info = ctx;
    if (!strcmp(name, "SLURM_JOB_ID"))
        copy_to(info->job, sizeof info->job, value);
    else if (!strcmp(name, "SLURM_STEP_ID"))
        copy_to(info->step, sizeof info->step, value);
    else if (!strcmp(name, "SLURM_CLUSTER_NAME"))
        copy_to(info->cluster, sizeof info->cluster, value);
}

void sl_jrn_meta_info(const jfile *j, sl_jrn_info *info)
{
    info->job[0] = info->step[0] = info->cluster[0] = '\0';
    each(j, info_var, info);
}

static int64_t count_of(const char *v)
{
    long long n;
    return sl_parse_i64(v, &n) == 0 && n > 0 ? n : -1;
}

static void run_var(void *ctx, const char *name, const char *value)
{
    sl_run_meta *m = ctx;
    long long uid;
    if (!strcmp(name, "user"))
        sl_set_string(&m->user, value);
    else if (!strcmp(name, "uid"))
        m->uid = sl_parse_i64(value, &uid) == 0 && uid >= 0 && uid < UINT32_MAX ? uid : -1;
    else if (!strcmp(name, "working_directory"))
        sl_set_string(&m->working_directory, value);
    else if (!strcmp(name, "mpi_size"))
        m->mpi_size = count_of(value);
    else if (!strcmp(name, "omp_num_threads"))
        m->omp_num_threads = count_of(value);
    else if (!strncmp(name, "SLURM_", 6) && !strchr(name, '/'))
        sl_run_meta_add_var(m, name, value);
}

void sl_jrn_meta_run(const jfile *j, sl_run *run)
{
    each(j, run_var, &run->meta);
}
