/* Reads a result file (docs/FORMAT.md) back into sl_run values: the entry
 * points, the root's format attributes, the rank groups in order (each read
 * by h5read.c). Everything is checked; a file that is not ours gives diag
 * lines and -EINVAL. */
#include "h5probe.h"
#include "h5read.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5_guard.h"
#include "h5_sp.h"
#include "h5_util.h"

void sl_runset_free(sl_runset *set)
{
    for (size_t i = 0; i < set->nruns; i++)
        sl_run_free(&set->runs[i]);
    free(set->runs);
    set->runs = NULL;
    set->nruns = 0;
    sl_file_meta_free(&set->meta);
}

int sl_h5r_format(sl_h5r *r, hid_t f)
{
    char *fmt = NULL;
    int64_t version = 0;
    r->version = SL_H5_FORMAT_VERSION; /* the root's fields are in every version */
    int rc = sl_h5r_str(r, f, "", SL_H5_FIELD(ROOT_FORMAT), &fmt);
    if (!rc && strcmp(fmt, SL_H5_FORMAT) != 0) {
        sl_diag_add(r->diag, r->file, 0, "/%s: is \"%s\": expected \"" SL_H5_FORMAT "\"",
                    SL_H5_NAME(ROOT_FORMAT), fmt);
        rc = -EINVAL;
    }
    if (!rc)
        rc = sl_h5r_i64(r, f, "", SL_H5_FIELD(ROOT_FORMAT_VERSION), &version);
    /* every version up to ours: the schema's `since` column says which
     * fields an older file lacks */
    if (!rc && (version < 1 || version > SL_H5_FORMAT_VERSION)) {
        sl_diag_add(r->diag, r->file, 0, "/%s: is %" PRId64 ": expected %d",
                    SL_H5_NAME(ROOT_FORMAT_VERSION), version, SL_H5_FORMAT_VERSION);
        rc = -EINVAL;
    }
    if (!rc)
        r->version = version;
    free(fmt);
    return rc;
}

/* A rank group of a scope-profiler file, or one without timing/ and
 * without our rank attributes, is in scope-profiler's layout (the latter
 * copied from one of their files by merge). */
static int read_run(sl_h5r *r, hid_t f, int sp, const char *name, int64_t number,
                    sl_runset *out, sl_run *run)
{
    if (sp || (r->version >= 2 && sl_h5_sp_group(f, name)))
        return sl_h5r_sp_run(r, f, name, number, &out->meta, run);
    return sl_h5r_run(r, f, name, number, run);
}

/* /metadata, then every rank group in order of its number. */
static int read_file(sl_h5r *r, hid_t f, sl_runset *out)
{
    int sp = sl_h5_sp_file(f), rc = 0;
    if (sp)
        r->version = SL_H5_FORMAT_VERSION; /* their /metadata: every field optional */
    else
        rc = sl_h5r_format(r, f);
    if (!rc)
        rc = sl_h5r_meta(r, f, &out->meta);
    char **names = NULL;
    size_t n = 0;
    if (!rc)
        rc = sl_h5r_links(r, f, "", &names, &n);
    sl_h5_rankref *refs = rc ? NULL : calloc(n ? n : 1, sizeof *refs);
    if (!rc && !refs)
        rc = -ENOMEM;
    size_t nr = 0;
    for (size_t i = 0; !rc && i < n; i++)
        if (sl_h5_rank_parse(names[i], &refs[nr].rank, &refs[nr].copy))
            refs[nr++].name = names[i];
    if (!rc) {
        sl_h5_rank_number(refs, nr);
        out->runs = calloc(nr ? nr : 1, sizeof *out->runs);
        rc = out->runs ? 0 : -ENOMEM;
    }
    for (size_t i = 0; !rc && i < nr; i++) {
        rc = read_run(r, f, sp, refs[i].name, refs[i].number, out, &out->runs[i]);
        out->nruns = i + 1; /* freed by the caller on failure, even half read */
    }
    free(refs);
    sl_h5r_free_names(names, n);
    return rc;
}

static int read_path(const char *path, sl_runset *out, sl_diag *diag)
{
    sl_h5r r = {path, diag, 0};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        sl_diag_add(diag, path, 0, "cannot open: %s", strerror(err));
        return -err;
    }
    close(fd);
    if (H5Fis_hdf5(path) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(diag, path, 0, "%s: expected a scope-likwid result file",
                    sl_h5_unreadable_why(path, (char[96]){0}, 96));
        return -EINVAL;
    }
    int rc = sl_h5_guard_file(path, diag);
    hid_t fapl = rc ? -1 : sl_h5_read_fapl();
    hid_t f = rc ? -1 : H5Fopen(path, H5F_ACC_RDONLY, fapl >= 0 ? fapl : H5P_DEFAULT);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (!rc && f < 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(diag, path, 0, "cannot open as HDF5: expected a scope-likwid result file");
        rc = -EINVAL;
    }
    if (!rc)
        rc = read_file(&r, f, out);
    if (f >= 0)
        H5Fclose(f);
    sl_h5_guard_done();
    if (rc)
        sl_runset_free(out);
    return rc;
}

int sl_h5_read_image(const void *buf, size_t len, const char *name, sl_runset *out,
                     sl_diag *diag)
{
    memset(out, 0, sizeof *out);
    sl_h5_errsave quiet;
    sl_h5_silence(&quiet);
    sl_h5r r = {name, diag, 0};
    int rc = sl_h5_guard_image(buf, len, name, diag);
    hid_t fapl = rc ? -1 : H5Pcreate(H5P_FILE_ACCESS);
    if (!rc && (fapl < 0 || H5Pset_fapl_core(fapl, 1u << 20, 0) < 0 ||
                H5Pset_file_image(fapl, (void *)buf, len) < 0))
        rc = -EIO;
    hid_t f = rc ? -1 : H5Fopen(name, H5F_ACC_RDONLY, fapl);
    if (!rc && f < 0) {
        sl_diag_add(diag, name, 0, "cannot open as HDF5: expected a scope-likwid result file");
        rc = -EINVAL;
    }
    H5Eclear2(H5E_DEFAULT);
    if (!rc)
        rc = read_file(&r, f, out);
    if (f >= 0)
        H5Fclose(f);
    if (fapl >= 0)
        H5Pclose(fapl);
    sl_h5_guard_done();
    sl_h5_restore(&quiet);
    if (rc)
        sl_runset_free(out);
    return rc;
}

int sl_h5_read(const char *path, sl_runset *out, sl_diag *diag)
{
    memset(out, 0, sizeof *out);
    sl_h5_errsave quiet;
    sl_h5_silence(&quiet);
    int rc = read_path(path, out, diag);
    sl_h5_restore(&quiet);
    return rc;
}
