/* The result file (docs/FORMAT.md): built in memory with HDF5's core driver,
 * then put on disk in one piece by h5_place.c, so a failure at any point
 * leaves no file and never touches an existing one. */
#include "h5write.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_place.h"
#include "h5_sp.h"
#include "h5_util.h"

#ifndef SCOPE_LIKWID_VERSION
#define SCOPE_LIKWID_VERSION "unknown"
#endif

/* The core driver grows its buffer by this much at a time. */
#define CORE_INCREMENT (1u << 20)

/* In-memory files need distinct names while open in one process. */
static char *mem_name(void)
{
    static unsigned counter;
    char *s = NULL;
    if (asprintf(&s, "scope-likwid-mem-%u", __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED)) < 0)
        return NULL;
    return s;
}

/* The core driver's buffer, taken over when the file is closed: only then
 * is the image final (H5Fget_file_image of an open file is not: HDF5 1.10
 * gives a superblock whose checksum does not match). */
typedef struct image_capture {
    void *mem;   /* the driver's current buffer */
    size_t size; /* its size as last set by the driver */
    void *done;  /* the buffer at close, now ours */
} image_capture;

static void *img_malloc(size_t size, H5FD_file_image_op_t op, void *udata)
{
    image_capture *c = udata;
    void *p = malloc(size ? size : 1);
    if (p && op == H5FD_FILE_IMAGE_OP_FILE_OPEN) {
        c->mem = p;
        c->size = size;
    }
    return p;
}

static void *img_memcpy(void *dst, const void *src, size_t size, H5FD_file_image_op_t op,
                        void *udata)
{
    (void)op;
    (void)udata;
    return memcpy(dst, src, size);
}

static void *img_realloc(void *ptr, size_t size, H5FD_file_image_op_t op, void *udata)
{
    image_capture *c = udata;
    void *p = realloc(ptr, size ? size : 1);
    if (p && op == H5FD_FILE_IMAGE_OP_FILE_RESIZE) {
        c->mem = p;
        c->size = size;
    }
    return p;
}

static herr_t img_free(void *ptr, H5FD_file_image_op_t op, void *udata)
{
    image_capture *c = udata;
    if (op == H5FD_FILE_IMAGE_OP_FILE_CLOSE && ptr && ptr == c->mem) {
        c->done = ptr;
        return 0;
    }
    free(ptr);
    return 0;
}

/* The capture lives on the caller's stack; property list copies share it. */
static void *img_udata_copy(void *udata)
{
    return udata;
}

static herr_t img_udata_free(void *udata)
{
    (void)udata;
    return 0;
}

static hid_t mem_fapl(sl_h5w *w, int new_file, image_capture *cap)
{
    H5FD_file_image_callbacks_t cb = {img_malloc,     img_memcpy,     img_realloc, img_free,
                                      img_udata_copy, img_udata_free, cap};
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) {
        sl_h5w_fail(w, -EIO, "set up", "the in-memory file");
        return -1;
    }
    if (H5Pset_fapl_core(fapl, CORE_INCREMENT, 0) < 0 ||
        H5Pset_file_image_callbacks(fapl, &cb) < 0 || sl_h5_small_cache(fapl) < 0 ||
        /* object headers, heaps and B-tree nodes placed together in blocks
         * of 64 KiB instead of 2 KiB: fewer allocations from the file's
         * free space (-1% instructions on 1000 regions, +0.9% file size) */
        H5Pset_meta_block_size(fapl, 64u << 10) < 0 ||
        /* the object formats of 1.8 and later (much faster to write than
         * the earliest) and superblock version 2, which HDF5 1.8 and every
         * later library reads (the 1.10 bound gave version 3, readable
         * from 1.10 on, at the same cost). Not for existing files: their
         * format stays theirs. */
        (new_file && H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0)) {
        sl_h5w_fail(w, -EIO, "set up", "the in-memory file");
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

static uint64_t le(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* The core driver's buffer ends on its growth increment; the file ends at
 * the end-of-file address in the superblock (format spec, "Superblock"). */
static size_t image_length(const unsigned char *img, size_t size)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    for (size_t at = 0; at + 64 <= size; at = at ? at * 2 : 512) {
        if (memcmp(img + at, sig, 8) != 0)
            continue;
        const unsigned char *sb = img + at;
        unsigned version = sb[8], so;
        size_t base_off, eof_off;
        if (version >= 2) {
            so = sb[9];
            base_off = 12;
            eof_off = 12 + 2 * (size_t)so;
        } else {
            so = sb[13];
            base_off = version == 1 ? 28 : 24;
            eof_off = base_off + 2 * (size_t)so;
        }
        if ((so != 4 && so != 8) || at + eof_off + so > size)
            return size;
        uint64_t end = le(sb + base_off, so) + le(sb + eof_off, so);
        return end > 0 && end <= size ? (size_t)end : size;
    }
    return size;
}

/* Closes the in-memory file and takes its final image. */
static int close_take(sl_h5w *w, hid_t f, image_capture *cap, void **buf, size_t *len)
{
    herr_t rc = H5Fclose(f);
    if (rc < 0 || !cap->done) {
        if (rc < 0)
            sl_h5w_fail(w, -EIO, "close", "the in-memory file");
        else
            sl_diag_add(w->diag, w->file, 0, "HDF5 kept the file image: expected it at close");
        free(cap->done);
        cap->done = NULL;
        return -EIO;
    }
    *buf = cap->done;
    *len = image_length(cap->done, cap->size);
    cap->done = NULL;
    return 0;
}

static int check_ranks(const char *path, const sl_run *runs, size_t nruns, sl_diag *diag)
{
    for (size_t i = 0; i < nruns; i++) {
        if (runs[i].rank < 0) {
            sl_diag_add(diag, path, 0, "run %zu has rank %" PRId64 ": expected a rank >= 0", i,
                        runs[i].rank);
            return -EINVAL;
        }
        for (size_t j = 0; j < i; j++)
            if (runs[j].rank == runs[i].rank) {
                sl_diag_add(diag, path, 0, "two runs with rank %" PRId64 ": expected one per rank",
                            runs[i].rank);
                return -EINVAL;
            }
    }
    return 0;
}

int sl_h5w_root(sl_h5w *w, hid_t f)
{
    int rc = sl_h5w_str(w, f, SL_H5_NAME(ROOT_FORMAT), SL_H5_FORMAT);
    if (!rc)
        rc = sl_h5w_i64(w, f, SL_H5_NAME(ROOT_FORMAT_VERSION), SL_H5_FORMAT_VERSION);
    if (!rc)
        rc = sl_h5w_str(w, f, SL_H5_NAME(ROOT_CREATED_BY), "scope-likwid " SCOPE_LIKWID_VERSION);
    return rc;
}

/* The in-memory file being built and what it needs. */
typedef struct mem_file {
    sl_h5w w;
    image_capture cap;
    char *name;
    hid_t fapl;
} mem_file;

/* Sets up writing `path` in memory (new_file: with the newer object
 * formats). 0, or negative errno with nothing left to clean up. */
static int mem_open(mem_file *m, const char *path, int new_file, sl_diag *diag)
{
    memset(m, 0, sizeof *m);
    m->fapl = -1;
    int rc = sl_h5w_open(&m->w, path, diag);
    if (rc)
        return rc;
    m->name = mem_name();
    m->fapl = m->name ? mem_fapl(&m->w, new_file, &m->cap) : -1;
    if (m->fapl >= 0)
        return 0;
    rc = m->name ? -EIO : -ENOMEM;
    sl_h5w_close(&m->w);
    free(m->name);
    return rc;
}

static void mem_close(mem_file *m)
{
    if (m->fapl >= 0)
        H5Pclose(m->fapl);
    free(m->cap.done); /* an image HDF5 released on a failed open */
    sl_h5w_close(&m->w);
    free(m->name);
}

/* One /metadata per file: rank 0's run, else the first. */
static const sl_run *meta_run(const sl_run *runs, size_t nruns)
{
    for (size_t i = 0; i < nruns; i++)
        if (runs[i].rank == 0)
            return &runs[i];
    return &runs[0];
}

/* into >= 0: the image goes into that file (sl_place_fd), else to a new
 * file at path (sl_place_new). */
static int write_new(const char *path, int into, const sl_run *runs, size_t nruns,
                     char **written, sl_diag *diag)
{
    int rc = check_ranks(path, runs, nruns, diag);
    if (rc)
        return rc;
    mem_file m;
    rc = mem_open(&m, path, 1, diag);
    if (rc)
        return rc;
    void *buf = NULL;
    size_t len = 0;
    hid_t f = H5Fcreate(m.name, H5F_ACC_TRUNC, H5P_DEFAULT, m.fapl);
    if (f < 0)
        rc = sl_h5w_fail(&m.w, -EIO, "create", "the in-memory file");
    else {
        rc = sl_h5w_root(&m.w, f);
        for (size_t i = 0; !rc && i < nruns; i++)
            rc = sl_h5w_run(&m.w, f, &runs[i]);
        if (!rc && nruns)
            rc = sl_h5w_meta(&m.w, f, meta_run(runs, nruns));
        int crc = close_take(&m.w, f, &m.cap, &buf, &len);
        rc = rc ? rc : crc;
    }
    mem_close(&m);
    if (!rc)
        rc = into >= 0 ? sl_place_fd(into, path, buf, len, diag)
                       : sl_place_new(path, buf, len, written, diag);
    free(buf);
    return rc;
}

/* Opens (or creates) rank<R> in an existing file and adds the rank
 * attributes and timing group it lacks, keeping the ones it has. */
static hid_t rank_group(sl_h5w *w, hid_t f, const sl_run *run)
{
    char name[32];
    sl_h5_rank_name(name, sizeof name, run->rank, 0);
    htri_t exists = H5Lexists(f, name, H5P_DEFAULT);
    if (exists < 0) {
        sl_h5w_fail(w, -EIO, "look up", name);
        return -1;
    }
    hid_t g = exists ? H5Oopen(f, name, H5P_DEFAULT) : sl_h5w_group(w, f, name, 0);
    if (g >= 0 && H5Iget_type(g) != H5I_GROUP) {
        H5Oclose(g);
        g = -1;
    }
    if (g < 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(w->diag, w->file, 0, "/%s is not a group: expected a rank group", name);
        return -1;
    }
    /* the run's likwid_status replaces the old one: it says where the new
     * counters came from */
    htri_t had_status = H5Aexists(g, SL_H5N_likwid_status);
    if (had_status < 0 || (had_status > 0 && H5Adelete(g, SL_H5N_likwid_status) < 0) ||
        sl_h5w_rank_attrs(w, g, run) < 0) {
        if (had_status < 0 || had_status > 0)
            H5Eclear2(H5E_DEFAULT);
        sl_h5w_fail(w, -EIO, "write the attributes of", name);
        H5Oclose(g);
        return -1;
    }
    /* timing/ is always present in a rank group: a new one gets the run's,
     * and scope-profiler's regions link to it */
    htri_t has_timing = H5Lexists(g, SL_H5N_timing, H5P_DEFAULT);
    if (has_timing < 0 ||
        (has_timing == 0 && (sl_h5w_timing(w, g, &run->timing) < 0 ||
                             (run->timing.nregions && sl_h5w_regions_link(w, g) < 0)))) {
        H5Oclose(g);
        return -1;
    }
    return g;
}

/* Adds rank<R>/likwid to the open in-memory copy f of a file of
 * scope-profiler's layout, as their LIKWID writer would, and nothing else:
 * the rank group must be there. */
static int add_sp_likwid(mem_file *m, hid_t f, const sl_run *run)
{
    char name[32];
    sl_h5_rank_name(name, sizeof name, run->rank, 0);
    hid_t g = H5Lexists(f, name, H5P_DEFAULT) > 0 ? H5Gopen2(f, name, H5P_DEFAULT) : -1;
    if (g < 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_diag_add(m->w.diag, m->w.file, 0,
                    "no /%s in this scope-profiler file: expected the rank the counters are for "
                    "(--rank R)", name);
        return -EINVAL;
    }
    int rc = sl_h5w_sp_likwid(&m->w, g, run);
    H5Gclose(g);
    return rc;
}

/* Adds rank<R>/likwid to the open in-memory copy f of an existing file. */
static int add_likwid(mem_file *m, hid_t f, const sl_run *run)
{
    if (sl_h5_sp_file(f))
        return add_sp_likwid(m, f, run);
    hid_t g = rank_group(&m->w, f, run);
    if (g < 0)
        return -EIO;
    int rc = 0;
    /* an existing /metadata is kept (one per file) */
    htri_t has_meta = H5Lexists(f, SL_H5N_metadata, H5P_DEFAULT);
    if (has_meta < 0 || (has_meta == 0 && sl_h5w_meta(&m->w, f, run) < 0))
        rc = sl_h5w_fail(&m->w, -EIO, "write", SL_H5N_metadata);
    htri_t had = rc ? 0 : H5Lexists(g, SL_H5N_likwid, H5P_DEFAULT);
    if (had < 0 || (had > 0 && H5Ldelete(g, SL_H5N_likwid, H5P_DEFAULT) < 0))
        rc = sl_h5w_fail(&m->w, -EIO, "replace", SL_H5N_likwid);
    if (!rc)
        rc = sl_h5w_likwid(&m->w, g, run);
    H5Oclose(g);
    return rc;
}

static int write_into(const char *path, const sl_run *run, sl_diag *diag)
{
    if (run->likwid.source == SL_SOURCE_NONE) {
        sl_diag_add(diag, path, 0, "the run has no counter data: expected a likwid source");
        return -EINVAL;
    }
    if (run->rank < 0) {
        sl_diag_add(diag, path, 0, "rank %" PRId64 ": expected a rank >= 0", run->rank);
        return -EINVAL;
    }
    void *old = NULL, *buf = NULL;
    size_t old_len = 0, len = 0;
    int rc = sl_slurp(path, &old, &old_len, diag);
    if (rc)
        return rc;
    mem_file m;
    rc = mem_open(&m, path, 0, diag);
    if (rc) {
        free(old);
        return rc;
    }
    hid_t f = -1;
    if (H5Pset_file_image(m.fapl, old, old_len) < 0)
        rc = sl_h5w_fail(&m.w, -EIO, "set up", "the in-memory file");
    free(old);
    if (!rc) {
        f = H5Fopen(m.name, H5F_ACC_RDWR, m.fapl);
        if (f < 0) {
            H5Eclear2(H5E_DEFAULT);
            sl_diag_add(diag, path, 0, "cannot open as HDF5: expected an HDF5 file");
            rc = -EINVAL;
        }
    }
    if (f >= 0) {
        rc = add_likwid(&m, f, run);
        int crc = close_take(&m.w, f, &m.cap, &buf, &len);
        rc = rc ? rc : crc;
    }
    mem_close(&m);
    if (!rc)
        rc = sl_place_replace(path, buf, len, diag);
    free(buf);
    return rc;
}

/* The entry points: HDF5's error printing silenced for the call only. */
int sl_h5_write(const char *path, const sl_run *runs, size_t nruns, char **written, sl_diag *diag)
{
    if (written)
        *written = NULL;
    sl_h5_errsave quiet;
    sl_h5_silence(&quiet);
    int rc = write_new(path, -1, runs, nruns, written, diag);
    sl_h5_restore(&quiet);
    return rc;
}

int sl_h5_write_fd(int fd, const char *path, const sl_run *runs, size_t nruns, sl_diag *diag)
{
    sl_h5_errsave quiet;
    sl_h5_silence(&quiet);
    int rc = write_new(path, fd, runs, nruns, NULL, diag);
    sl_h5_restore(&quiet);
    return rc;
}

int sl_h5_into(const char *path, const sl_run *run, sl_diag *diag)
{
    sl_h5_errsave quiet;
    sl_h5_silence(&quiet);
    int rc = write_into(path, run, diag);
    sl_h5_restore(&quiet);
    return rc;
}
