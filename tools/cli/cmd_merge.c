/* scope-likwid merge: one file for a whole job. Every rank group of the
 * inputs is copied as it is (H5Ocopy: no decoding, no re-encoding) into a
 * new file that is put in place like every result file: temporary name,
 * no overwrite, no half file on failure. Inputs are opened read-only. */
#include "cmds.h"

#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "h5_guard.h"
#include "h5_util.h"
#include "sandbox.h"

static const char usage[] =
    "usage: scope-likwid merge -o OUT.h5 RANK_FILE.h5...\n"
    "\n"
    "Writes one result file holding every rank<R> group of the inputs,\n"
    "copied unchanged (HDF5 object copy), with the root attributes format,\n"
    "format_version and created_by. Inputs are only read.\n"
    "\n"
    "When two inputs hold the same rank (non-MPI processes are all rank 0),\n"
    "both are kept: the first as rank<R>, later ones as rank<R>.1, rank<R>.2,\n"
    "... (docs/FORMAT.md); each such clash is said on stderr.\n"
    "OUT.h5 is never overwritten: OUT.1.h5, OUT.2.h5, ... is used instead.\n"
    "Prints \"wrote PATH\" on success.\n"
    "\n"
    "  -o, --output OUT.h5  the merged file (required)\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit codes: 0 written, 1 an input is not a readable result file or the\n"
    "write failed (nothing written), 2 usage error.\n";

/* "rank<R>" or "rank<R>.<k>" (R, k decimal without leading zeros, k >= 1):
 * the base rank R, or -1 for any other name. */
static int64_t rank_of(const char *name)
{
    if (strncmp(name, "rank", 4) != 0)
        return -1;
    const char *p = name + 4;
    if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
        return -1;
    char *end;
    errno = 0;
    long long r = strtoll(p, &end, 10);
    if (errno)
        return -1;
    if (*end == '.') {
        const char *k = end + 1;
        if (*k < '1' || *k > '9')
            return -1;
        strtoll(k, &end, 10);
        if (errno)
            return -1;
    }
    return *end ? -1 : r;
}

/* One rank group of the output, and where it came from. */
typedef struct placed {
    int64_t rank;
    char *name;
    const char *from;
} placed;

typedef struct merge {
    const char *out;
    hid_t in_fapl;      /* inputs read whole into memory: no small reads */
    sl_diag *diag;
    size_t n, cap;
    placed *groups;
} merge;

static int taken(const merge *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->groups[i].name, name))
            return 1;
    return 0;
}

/* The first free name for rank R; the group it clashes with in *clash. */
static char *free_name(const merge *m, int64_t rank, const placed **clash)
{
    *clash = NULL;
    for (size_t i = 0; i < m->n && !*clash; i++)
        if (m->groups[i].rank == rank)
            *clash = &m->groups[i];
    for (unsigned k = 0;; k++) {
        char *s = NULL;
        if ((k ? asprintf(&s, "rank%" PRId64 ".%u", rank, k)
               : asprintf(&s, "rank%" PRId64, rank)) < 0)
            return NULL;
        if (!taken(m, s))
            return s;
        free(s);
    }
}

static int add_placed(merge *m, int64_t rank, char *name, const char *from)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        placed *g = realloc(m->groups, cap * sizeof *g);
        if (!g)
            return -ENOMEM;
        m->groups = g;
        m->cap = cap;
    }
    m->groups[m->n++] = (placed){rank, name, from};
    return 0;
}

typedef struct names {
    size_t n, cap;
    char **v;
} names;

static herr_t collect(hid_t g, const char *name, const H5L_info_t *info, void *udata)
{
    (void)g;
    (void)info;
    names *ns = udata;
    if (rank_of(name) < 0)
        return 0;
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? ns->cap * 2 : 8;
        char **v = realloc(ns->v, cap * sizeof *v);
        if (!v)
            return -1;
        ns->v = v;
        ns->cap = cap;
    }
    if (!(ns->v[ns->n] = strdup(name)))
        return -1;
    ns->n++;
    return 0;
}

/* format = "scope-likwid", format_version = 1, as the reader wants them. */
static int check_format(merge *m, hid_t f, const char *path)
{
    sl_h5r r = {path, m->diag};
    char *fmt = NULL;
    int64_t version = 0;
    int rc = sl_h5r_str(&r, f, "", "format", &fmt);
    if (!rc && strcmp(fmt, SL_H5_FORMAT) != 0) {
        sl_diag_add(m->diag, path, 0, "/format: is \"%s\": expected \"" SL_H5_FORMAT "\"", fmt);
        rc = -EINVAL;
    }
    if (!rc)
        rc = sl_h5r_i64(&r, f, "", "format_version", &version);
    if (!rc && version != SL_H5_FORMAT_VERSION) {
        sl_diag_add(m->diag, path, 0, "/format_version: is %" PRId64 ": expected %d", version,
                    SL_H5_FORMAT_VERSION);
        rc = -EINVAL;
    }
    free(fmt);
    return rc;
}

/* Copies every rank group of one input into the output. */
static int merge_one(merge *m, hid_t dst, hid_t lcpl, const char *path)
{
    /* ours: the root attributes say so; the groups are copied, not read
     * (reading every region would cost more than the copy: `show` and
     * `diff` check them when they read the merged file) */
    sl_sandbox_reading(path);
    int is_h5 = H5Fis_hdf5(path) > 0;
    if (is_h5 && sl_h5_guard_file(path, m->diag)) /* what libhdf5 does not check */
        return -EINVAL;
    hid_t src = is_h5 ? H5Fopen(path, H5F_ACC_RDONLY, m->in_fapl) : -1;
    if (src < 0) {
        H5Eclear2(H5E_DEFAULT);
        if (access(path, R_OK) < 0)
            sl_diag_add(m->diag, path, 0, "cannot open: %s", strerror(errno));
        else
            sl_diag_add(m->diag, path, 0, "not an HDF5 file: expected a scope-likwid result file");
        return -EINVAL;
    }
    int rc = check_format(m, src, path);
    if (rc) {
        H5Fclose(src);
        return rc;
    }
    names ns = {0};
    hsize_t idx = 0;
    if (H5Literate(src, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &ns) < 0) {
        sl_diag_add(m->diag, path, 0, "cannot list the rank groups");
        rc = -EIO;
    }
    for (size_t i = 0; !rc && i < ns.n; i++) {
        int64_t rank = rank_of(ns.v[i]);
        const placed *clash;
        char *name = free_name(m, rank, &clash);
        if (!name) {
            rc = -ENOMEM;
            break;
        }
        /* a rank group without timing/ is not one of ours (FORMAT.md) */
        char *timing = NULL;
        if (asprintf(&timing, "%s/timing", ns.v[i]) < 0) {
            free(name);
            rc = -ENOMEM;
            break;
        }
        htri_t ok = H5Lexists(src, timing, sl_h5_guard_lapl()); /* no soft/external link followed */
        free(timing);
        if (ok <= 0) {
            H5Eclear2(H5E_DEFAULT);
            sl_diag_add(m->diag, path, 0, "/%s has no timing group: expected a rank group",
                        ns.v[i]);
            free(name);
            rc = -EINVAL;
            break;
        }
        if (clash && clash->from != path) /* a merged input's own copies are no clash */
            fprintf(stderr,
                    "scope-likwid: merge: %s: /%s clashes with /%s of %s: written as /%s\n", path,
                    ns.v[i], clash->name, clash->from, name);
        if (sl_h5_guard_copyable(src, ns.v[i])) {
            sl_diag_add(m->diag, path, 0,
                        "/%s: attributes in dense storage or unreadable objects: expected at "
                        "most 32 attributes per object, as scope-likwid writes them",
                        ns.v[i]);
            free(name);
            rc = -EINVAL;
            break;
        }
        if (H5Ocopy(src, ns.v[i], dst, name, H5P_DEFAULT, lcpl) < 0) {
            char why[256];
            sl_h5_errmsg(why, sizeof why);
            sl_diag_add(m->diag, path, 0, "cannot copy /%s: %s", ns.v[i], why);
            free(name);
            rc = -EIO;
            break;
        }
        rc = add_placed(m, rank, name, path);
        if (rc)
            free(name);
    }
    for (size_t i = 0; i < ns.n; i++)
        free(ns.v[i]);
    free(ns.v);
    H5Fclose(src);
    return rc;
}

/* A new empty file in OUT's directory for HDF5 to build the merge in. */
static char *temp_near(const char *out)
{
    const char *slash = strrchr(out, '/');
    char *tmp = NULL;
    if (asprintf(&tmp, "%.*s.%s.merge.XXXXXX", slash ? (int)(slash - out + 1) : 0, out,
                 slash ? slash + 1 : out) < 0)
        return NULL;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return NULL;
    }
    close(fd);
    return tmp;
}

/* Builds the merged file at tmp (in memory until closed: one write). */
static int build(merge *m, const char *tmp, char **inputs, size_t ninputs)
{
    sl_h5w w;
    int rc = sl_h5w_open(&w, m->out, m->diag);
    if (rc)
        return rc;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f = -1;
    if (fapl < 0 || H5Pset_fapl_core(fapl, 1u << 20, 1) < 0 ||
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_LATEST) < 0) {
        rc = sl_h5w_fail(&w, -EIO, "set up", "the output file");
        goto out;
    }
    f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f < 0) {
        rc = sl_h5w_fail(&w, -EIO, "create", tmp);
        goto out;
    }
    rc = sl_h5w_str(&w, f, "format", SL_H5_FORMAT);
    if (!rc)
        rc = sl_h5w_i64(&w, f, "format_version", SL_H5_FORMAT_VERSION);
    if (!rc)
        rc = sl_h5w_str(&w, f, "created_by", "scope-likwid " SCOPE_LIKWID_VERSION);
    m->in_fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (m->in_fapl < 0 || H5Pset_fapl_core(m->in_fapl, 1u << 20, 0) < 0)
        rc = sl_h5w_fail(&w, -EIO, "set up", "reading the inputs");
    for (size_t i = 0; !rc && i < ninputs; i++)
        rc = merge_one(m, f, w.lcpl, inputs[i]);
    if (m->in_fapl >= 0)
        H5Pclose(m->in_fapl);
out:
    if (f >= 0 && H5Fclose(f) < 0 && !rc)
        rc = sl_h5w_fail(&w, -EIO, "write", tmp);
    if (fapl >= 0)
        H5Pclose(fapl);
    sl_h5w_close(&w);
    return rc;
}

int sl_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    char **inputs = calloc((size_t)argc, sizeof *inputs);
    size_t ninputs = 0;
    int only_positional = 0;
    if (!inputs)
        return SL_EXIT_FAIL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_positional || a[0] != '-' || !a[1]) {
            inputs[ninputs++] = argv[i];
        } else if (!strcmp(a, "--")) {
            only_positional = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            free(inputs);
            return SL_EXIT_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc || out) {
                free(inputs);
                return sl_usage_error(out ? "merge: -o given twice" : "merge: %s needs a file", a);
            }
            out = argv[++i];
        } else {
            free(inputs);
            return sl_usage_error("merge: unknown option '%s'", a);
        }
    }
    if (!out || !ninputs) {
        free(inputs);
        return sl_usage_error(!out ? "merge: missing -o OUT.h5" : "merge: no input files");
    }

    sl_h5_quiet();
    sl_diag diag;
    sl_diag_init(&diag);
    merge m = {.out = out, .diag = &diag};
    char *tmp = temp_near(out), *written = NULL;
    void *buf = NULL;
    size_t len = 0;
    int rc;
    if (!tmp) {
        rc = -errno;
        sl_diag_add(&diag, out, 0, "cannot create a temporary file next to it: %s",
                    strerror(errno));
    } else {
        rc = build(&m, tmp, inputs, ninputs);
        if (!rc)
            rc = sl_slurp(tmp, &buf, &len, &diag);
        unlink(tmp);
    }
    if (!rc)
        rc = sl_place_new(out, buf, len, &written, &diag);
    for (size_t i = 0; i < diag.kept; i++)
        fprintf(stderr, "%s\n", diag.lines[i]);
    if (!rc)
        printf("wrote %s\n", written ? written : out);
    else
        fprintf(stderr, "scope-likwid: merge: nothing written\n");
    free(buf);
    free(tmp);
    free(written);
    for (size_t i = 0; i < m.n; i++)
        free(m.groups[i].name);
    free(m.groups);
    sl_diag_free(&diag);
    free(inputs);
    return rc ? SL_EXIT_FAIL : SL_EXIT_OK;
}
