/* The run's /metadata noted in the journal at Init (journal.h,
 * SL_JRN_META): what a result recovered from the journal carries, and the
 * batch job recover asks about. Its header has no room for it. */
#include "journal_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct note {
    char *buf;          /* NULL: only count */
    size_t n, cap;
    uint32_t left_out;
} note;

/* One NAME=VALUE string (name_len bytes of name), if it fits whole. */
static int put(note *t, const char *name, size_t name_len, const char *value)
{
    size_t vlen = strlen(value), need = name_len + 1 + vlen + 1;
    if (need > SL_JRN_META_MAX - t->n)
        return -1;
    if (t->buf) {
        if (need > t->cap - t->n)
            return -1;      /* the environment grew since it was counted */
        memcpy(t->buf + t->n, name, name_len);
        t->buf[t->n + name_len] = '=';
        memcpy(t->buf + t->n + name_len + 1, value, vlen + 1);
    }
    t->n += need;
    return 0;
}

static void put_count(note *t, const char *name, int64_t v)
{
    char num[24];
    if (v > 0) {
        snprintf(num, sizeof num, "%lld", (long long)v);
        put(t, name, strlen(name), num);
    }
}

static void fill(note *t, const char *cwd, int64_t mpi_size, int64_t omp)
{
    const char *user = sl_g.user;    /* the passwd name (for a %u only), never USER */
    if (user)
        put(t, "user", 4, user);
    char uid[24];       /* the writer names the user by it (user_name.h) */
    snprintf(uid, sizeof uid, "%u", (unsigned)sl_g.uid);
    put(t, "uid", 3, uid);
    if (cwd)
        put(t, "working_directory", 17, cwd);
    put_count(t, "mpi_size", mpi_size);
    put_count(t, "omp_num_threads", omp);
    for (char **e = sl_env_all(); e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || strncmp(*e, "SLURM_", 6) != 0)
            continue;
        if (put(t, *e, (size_t)(eq - *e), eq + 1) != 0)
            t->left_out++;
    }
}

void sl_journal_note_meta(int mpi)
{
    char *cwd = getcwd(NULL, 0);
    int64_t mpi_size = mpi ? sl_world_size_from_env() : 1;
    int64_t omp = sl_omp_threads_known();
    note count = {0};
    fill(&count, cwd, mpi_size, omp);
    sl_jrn_meta *m = sl_journal_alloc(SL_JRN_META, sizeof *m + count.n, NULL);
    if (m) {
        note t = {(char *)(m + 1), 0, count.n, 0};
        fill(&t, cwd, mpi_size, omp);
        m->bytes = (uint32_t)t.n;
        m->left_out = t.left_out;
        sl_journal_commit(m);
    }
    free(cwd);
}
