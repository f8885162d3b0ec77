/* Merging result files: every rank group of the inputs is copied as it is
 * (H5Ocopy: no decoding, no re-encoding) into a new file that is put in
 * place like every result file. Inputs are opened read-only. */
#include "h5merge.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "name_fit.h"
#include "vec.h"
#include "h5_util.h"

/* One rank group of the output, and where it came from. */
typedef struct placed {
    int64_t rank;
    char *name;
    const char *from;
} placed;

typedef struct merge {
    const char *out;
    hid_t in_fapl; /* inputs read whole into memory: no small reads */
    sl_diag *diag;
    sl_h5_clash_fn clash;
    void *ctx;
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
    char buf[48];
    for (unsigned k = 0;; k++) {
        sl_h5_rank_name(buf, sizeof buf, rank, k);
        if (!taken(m, buf))
            return strdup(buf);
    }
}

static int add_placed(merge *m, int64_t rank, char *name, const char *from)
{
    if (SL_VEC_RESERVE(m->groups, m->cap, m->n, 1) < 0)
        return -ENOMEM;
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
    int64_t rank, copy;
    if (!sl_h5_rank_parse(name, &rank, &copy))
        return 0;
    if (SL_VEC_RESERVE(ns->v, ns->cap, ns->n, 1) < 0)
        return -1;
    if (!(ns->v[ns->n] = strdup(name)))
        return -1;
    ns->n++;
    return 0;
}

/* Copies rank group `from` of src as a new group of dst. */
static int copy_group(merge *m, hid_t src, hid_t dst, hid_t lcpl, const char *path,
                      const char *from)
{
    int64_t rank = 0, copy = 0;
    sl_h5_rank_parse(from, &rank, &copy);
    const placed *clash;
    char *name = free_name(m, rank, &clash);
    if (!name)
        return -ENOMEM;
    /* a rank group without timing/ is not one of ours (FORMAT.md) */
    char *timing = NULL;
    if (asprintf(&timing, "%s/%s", from, SL_H5N_timing) < 0) {
        free(name);
        return -ENOMEM;
    }
    htri_t ok = H5Lexists(src, timing, H5P_DEFAULT);
    free(timing);
    if (ok <= 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(m->diag, path, 0, "/%s has no %s group: expected a rank group", from,
                    SL_H5N_timing);
        free(name);
        return -EINVAL;
    }
    if (clash && clash->from != path && m->clash) /* a merged input's own copies are no clash */
        m->clash(m->ctx, path, from, clash->name, clash->from, name);
    if (H5Ocopy(src, from, dst, name, H5P_DEFAULT, lcpl) < 0) {
        char why[256];
        sl_h5_errmsg(why, sizeof why);
        sl_diag_add(m->diag, path, 0, "cannot copy /%s: %s", from, why);
        free(name);
        return -EIO;
    }
    int rc = add_placed(m, rank, name, path);
    if (rc)
        free(name);
    return rc;
}

/* Copies every rank group of one input into the output. */
static int merge_one(merge *m, hid_t dst, hid_t lcpl, const char *path)
{
    /* ours: the root attributes say so; the groups are copied, not read
     * (reading every region would cost more than the copy: `show` and
     * `diff` check them when they read the merged file) */
    hid_t src = H5Fis_hdf5(path) > 0 ? H5Fopen(path, H5F_ACC_RDONLY, m->in_fapl) : -1;
    if (src < 0) {
        H5Eclear2(H5E_DEFAULT);
        if (access(path, R_OK) < 0)
            sl_diag_add(m->diag, path, 0, "cannot open: %s", strerror(errno));
        else
            sl_diag_add(m->diag, path, 0, "not an HDF5 file: expected a scope-likwid result file");
        return -EINVAL;
    }
    sl_h5r r = {path, m->diag, 0};
    int rc = sl_h5r_format(&r, src);
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
    for (size_t i = 0; !rc && i < ns.n; i++)
        rc = copy_group(m, src, dst, lcpl, path, ns.v[i]);
    for (size_t i = 0; i < ns.n; i++)
        free(ns.v[i]);
    free(ns.v);
    H5Fclose(src);
    return rc;
}

/* A new empty file in OUT's directory for HDF5 to build the merge in. */
static char *temp_near(const char *out)
{
    /* Within NAME_MAX whatever the name's length (name_fit.h). */
    char *tmp = sl_name_fit(out, ".", ".merge.XXXXXX");
    if (!tmp)
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
static int build(merge *m, const char *tmp, char *const *inputs, size_t ninputs)
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
    rc = sl_h5w_root(&w, f);
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

static int merge_files(merge *m, char *const *inputs, size_t ninputs, char **written)
{
    char *tmp = temp_near(m->out);
    void *buf = NULL;
    size_t len = 0;
    int rc;
    if (!tmp) {
        rc = -errno;
        sl_diag_add(m->diag, m->out, 0, "cannot create a temporary file next to it: %s",
                    strerror(errno));
    } else {
        rc = build(m, tmp, inputs, ninputs);
        if (!rc)
            rc = sl_slurp(tmp, &buf, &len, m->diag);
        unlink(tmp);
    }
    if (!rc)
        rc = sl_place_new(m->out, buf, len, written, m->diag);
    free(buf);
    free(tmp);
    return rc;
}

int sl_h5_merge(const char *out, char *const *inputs, size_t ninputs, sl_h5_clash_fn clash,
                void *ctx, char **written, sl_diag *diag)
{
    *written = NULL;
    sl_h5_errsave quiet;
    sl_h5_silence(&quiet);
    merge m = {.out = out, .diag = diag, .clash = clash, .ctx = ctx};
    int rc = merge_files(&m, inputs, ninputs, written);
    for (size_t i = 0; i < m.n; i++)
        free(m.groups[i].name);
    free(m.groups);
    sl_h5_restore(&quiet);
    return rc;
}
