/* The result's name: the default template, its expansion, its place
 * (directories made or refused), names derived for cycles and children. */
#include "ground.h"
#include "fileio.h"
#include "name_fit.h"
#include "trusted_dir.h"
#include "vec.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#define WHY_BYTES (2 * PATH_MAX + 256)

const char *sl_output_default(int mpi, int job)
{
    if (job)
        return mpi ? "scope-likwid-%j-rank%r.h5" : "scope-likwid-%j-%p.h5";
    return mpi ? "scope-likwid-rank%r.h5" : "scope-likwid-%p.h5";
}

typedef struct buf {
    char *s;
    size_t len, cap;
    int oom;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (SL_VEC_RESERVE(b->s, b->cap, b->len, n + 1) < 0) {
        b->oom = 1;
        return;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void puts_(buf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* A host or job name must not add directories to the path. */
static void put_component(buf *b, const char *s)
{
    for (; *s; s++)
        put(b, *s == '/' ? "_" : s, 1);
}

int sl_output_needs_user(const char *tmpl)
{
    for (const char *p = tmpl; p && *p; p++)
        if (*p == '%' && p[1]) {
            if (p[1] == 'u')
                return 1;
            p++;    /* the code ("%%" included) */
        }
    return 0;
}

char *sl_output_expand(const char *tmpl, const sl_output_vars *v)
{
    buf b = {0};
    char num[32];
    if (tmpl[0] != '/' && v->cwd && v->cwd[0]) {
        puts_(&b, v->cwd);
        if (v->cwd[strlen(v->cwd) - 1] != '/')
            puts_(&b, "/");
    }
    for (const char *p = tmpl; *p; p++) {
        if (*p != '%') {
            put(&b, p, 1);
            continue;
        }
        switch (p[1]) {
        case 'r':
            snprintf(num, sizeof num, "%" PRId64, v->rank);
            puts_(&b, num);
            break;
        case 'p':
            snprintf(num, sizeof num, "%" PRId64, v->pid);
            puts_(&b, num);
            break;
        case 'h':
            put_component(&b, v->host && *v->host ? v->host : "unknownhost");
            break;
        case 'j':
            put_component(&b, v->job && *v->job ? v->job : "nojob");
            break;
        case 'u':
            put_component(&b, v->user && *v->user ? v->user : "nouser");
            break;
        case 'd':
        case 't': {
            time_t t = (time_t)v->unix_s;
            struct tm tm;
            if (gmtime_r(&t, &tm) &&
                strftime(num, sizeof num, p[1] == 'd' ? "%Y-%m-%d" : "%H%M%S", &tm) > 0)
                puts_(&b, num);
            break;
        }
        case '%':
            puts_(&b, "%");
            break;
        case '\0':
            sl_log_warn("SCOPE_LIKWID_OUTPUT='%s': '%%' at the end: expected one of "
                        "%%r %%p %%h %%j %%u %%d %%t %%%%; kept literally", tmpl);
            puts_(&b, "%");
            continue;   /* p[1] is the terminator: the loop ends */
        default:
            sl_log_warn("SCOPE_LIKWID_OUTPUT='%s': unknown code '%%%c': expected one of "
                        "%%r %%p %%h %%j %%u %%d %%t %%%%; kept literally", tmpl, p[1]);
            put(&b, p, 2);
            break;
        }
        p++;
    }
    if (!b.s && !b.oom)
        puts_(&b, "");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* The default name in dir (NULL: relative, as the caller's cwd resolves it). */
static char *default_in(const char *dir, int mpi, const sl_output_vars *v)
{
    sl_output_vars in = *v;
    in.cwd = dir;
    return sl_output_expand(sl_output_default(mpi, v->job != NULL), &in);
}

/* The directory of path made (make) or found as it is, and trusted: path;
 * else, when another user could change what is in it, the same name in a
 * spare directory (one line says which); none there either: NULL with
 * *no_result set. A directory that cannot be made is said and path kept
 * (the rescue file then takes the timing to a spare directory). */
static char *settle(char *path, int make, int *no_result)
{
    char *dir = sl_dir_of(path), *why = malloc(WHY_BYTES);
    if (!dir || !why) {
        free(dir);
        free(why);
        return path;
    }
    int rc = make ? sl_dir_make(dir, sl_dir_mode(), geteuid(), why, WHY_BYTES)
                  : sl_dir_trusted(dir, geteuid(), why, WHY_BYTES);
    if (rc != 0 && rc != -EPERM && (make || rc != -ENOENT))
        sl_log_warn("cannot create the directory %s for the result %s (%s)", dir, path, why);
    if (rc == -EPERM) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        char *moved = NULL;
        for (int i = 0; i < 2 && !moved; i++)
            if (sl_spare_dir(i))
                moved = sl_name_fit_in(sl_spare_dir(i), "", base, "");
        if (moved)
            sl_log_warn("the directory %s is not safe for the result (%s: another user could "
                        "change what is in it); writing %s instead", dir, why, moved);
        else
            sl_log_warn("the directory %s is not safe for the result (%s: another user could "
                        "change what is in it), nor is TMPDIR or /tmp: no result file (the "
                        "calls pass through to LIKWID untimed)", dir, why);
        free(path);
        path = moved;
        *no_result = !moved;
    }
    free(dir);
    free(why);
    return path;
}

char *sl_output_place(char *path, int mpi, const sl_output_vars *v, int *no_result)
{
    *no_result = 0;
    size_t len = strlen(path);
    struct stat st, null_st;
    int exists = stat(path, &st) == 0;
    if ((len > 0 && path[len - 1] == '/') || (exists && S_ISDIR(st.st_mode))) {
        char *in = default_in(path, mpi, v);
        free(path);
        return in ? settle(in, 1, no_result) : NULL;
    }
    if (!exists || S_ISREG(st.st_mode))
        return settle(path, 1, no_result);
    if (stat("/dev/null", &null_st) == 0 && st.st_dev == null_st.st_dev &&
        st.st_ino == null_st.st_ino) {
        sl_log_warn("SCOPE_LIKWID_OUTPUT is %s: no result file (the calls pass through to "
                    "LIKWID untimed)", path);
        free(path);
        *no_result = 1;
        return NULL;
    }
    char *fallback = default_in(v->cwd, mpi, v);
    if (fallback)
        sl_log_warn("SCOPE_LIKWID_OUTPUT %s is %s: expected a regular file or a directory; "
                    "writing %s instead", path, sl_mode_kind(st.st_mode), fallback);
    free(path);
    return fallback ? settle(fallback, 0, no_result) : NULL;
}

/* "<dir>/<stem>.<what><N><.h5 or nothing>", kept within NAME_MAX. */
char *sl_output_derived(const char *output, const char *what, long long n)
{
    char suffix[48];
    size_t len = strlen(output);
    int h5 = len > 3 && strcmp(output + len - 3, ".h5") == 0;
    snprintf(suffix, sizeof suffix, ".%s%lld%s", what, n, h5 ? ".h5" : "");
    char *stem = strndup(output, h5 ? len - 3 : len);
    if (!stem)
        return NULL;
    char *out = sl_name_fit(stem, "", suffix);
    free(stem);
    return out;
}

/* ---- the result's name, written here only ---- */

void sl_name_result_init(char *expanded, const sl_output_vars *v, int *no_result)
{
    sl_g.output = expanded ? sl_output_place(expanded, sl_g.mpi, v, no_result) : NULL;
}

void sl_name_result_first(void)
{
    sl_g.first_output = sl_g.output;
}

void sl_name_result_cycle(char *out)
{
    if (sl_g.output != sl_g.first_output)
        free(sl_g.output);
    sl_g.output = out;
}

void sl_name_result_fork(char *out)
{
    /* The parent's names, in the child's copy of its heap. */
    if (sl_g.first_output != sl_g.output)
        free(sl_g.first_output);
    free(sl_g.output);
    sl_g.output = sl_g.first_output = out;
}
