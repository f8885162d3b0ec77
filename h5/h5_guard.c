/* Checks on a result file's bytes and declared sizes (h5_guard.h).
 *
 * Global heap collections ("GCOL", HDF5 file format spec III.E) hold the
 * variable-length strings; a string attribute holds references (length,
 * collection address, object index). libhdf5 1.10.8 walks a collection's
 * objects by their declared sizes without bounds (an object of size 0
 * loops forever, a large one reads outside the collection) and copies an
 * object of its declared size into a buffer sized by the reference's
 * length. So every collection is walked here first, and every object must
 * be a string as we write them: no NUL byte, zeros up to the next multiple
 * of 8. (The references themselves sit in object headers and fractal heap
 * blocks, which carry checksums libhdf5 verifies.) */
#include "h5_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDR 16      /* collection header: "GCOL", version, 3 reserved, size */
#define OBJHDR 16   /* object header: index, refcount, 4 reserved, size */
#define MINSIZE 4096 /* the smallest collection libhdf5 writes */

static _Thread_local uint64_t file_size; /* 0: unknown, ask libhdf5 */
/* What the last image scanned says of dense attribute storage: 0 not
 * scanned, 1 none possible, 2 maybe (sl_h5_guard_copyable walks then). */
static _Thread_local int dense_attrs;

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Walks the collection at off the way libhdf5 does; NULL when sound, else
 * what is wrong. */
static const char *walk(const unsigned char *buf, size_t len, size_t off)
{
    uint64_t size = le(buf + off + 8, 8);
    if (size < MINSIZE || size > len - off)
        return "global heap collection size outside the file";
    const unsigned char *end = buf + off + size;
    const unsigned char *p = buf + off + HDR;
    while (p < end) {
        if ((size_t)(end - p) < OBJHDR)
            break; /* too small for an object: free space */
        uint32_t idx = (uint32_t)le(p, 2);
        uint64_t osize = le(p + 8, 8);
        uint64_t room = (uint64_t)(end - p);
        uint64_t need;
        if (idx == 0) {
            /* free space: its size covers its own header */
            if (osize < OBJHDR || osize > room)
                return "global heap free space of impossible size";
            need = osize;
        } else {
            if (osize > room - OBJHDR)
                return "global heap object larger than its collection";
            need = OBJHDR + ((osize + 7) & ~(uint64_t)7);
            if (need > room)
                return "global heap object larger than its collection";
            /* a string of our files: no NUL inside, zeros up to the
             * alignment; a flipped low bit of its size shows here */
            const unsigned char *data = p + OBJHDR;
            if (memchr(data, 0, osize))
                return "global heap string with a NUL byte";
            for (uint64_t k = osize; k < need - OBJHDR; k++)
                if (data[k])
                    return "global heap string with bytes after its end";
        }
        p += need;
    }
    return NULL;
}

/* The next place at or after p where "GCOL" (a global heap collection) or
 * "BTHD" (a v2 B-tree header) starts, NULL when none: 16 bytes at a time
 * on their first two bytes (two memmem passes cost 6.5 instructions per
 * byte of the file, 8% of a merge). */
typedef unsigned char sl_v16 __attribute__((vector_size(16)));

static const unsigned char *next_sig(const unsigned char *p, const unsigned char *end)
{
    while (end - p >= 17) {
        sl_v16 a, b;
        memcpy(&a, p, 16);
        memcpy(&b, p + 1, 16);
        sl_v16 hit = (sl_v16)(((a == 'G') & (b == 'C')) | ((a == 'B') & (b == 'T')));
        uint64_t w[2];
        memcpy(w, &hit, sizeof w);
        if (w[0] | w[1])
            for (int k = 0; k < 16; k++)
                if (hit[k] && end - (p + k) >= 4 &&
                    (!memcmp(p + k, "GCOL", 4) || !memcmp(p + k, "BTHD", 4)))
                    return p + k;
        p += 16;
    }
    for (; end - p >= 4; p++)
        if (!memcmp(p, "GCOL", 4) || !memcmp(p, "BTHD", 4))
            return p;
    return NULL;
}

static int damaged(sl_diag *diag, const char *file, const char *what, size_t at)
{
    sl_diag_add(diag, file, 0, "damaged: %s (at byte %zu): expected a sound HDF5 file", what, at);
    return -EINVAL;
}

/* External links are a link class libhdf5 registers at start: without it
 * no external link is followed (an external link to a FIFO blocks H5Oopen
 * forever). Our files have none; a process that reads them needs none. */
static void no_external_links(void)
{
    static _Thread_local int done;
    if (done)
        return;
    done = 1;
    if (H5Lis_registered(H5L_TYPE_EXTERNAL) > 0)
        H5Lunregister(H5L_TYPE_EXTERNAL);
    H5Eclear2(H5E_DEFAULT);
}

int sl_h5_guard_image(const void *image, size_t len, const char *file, sl_diag *diag)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    const unsigned char *buf = image;
    file_size = len;
    no_external_links();
    if (len < 48 || memcmp(buf, sig, 8) != 0)
        return damaged(diag, file, len >= 8 && !memcmp(buf, sig, 8) ? "cut short within the superblock"
                                                                   : "no HDF5 superblock at the start", 0);
    unsigned v = buf[8];
    size_t so, sl, base;
    if (v <= 1) {
        so = buf[13];
        sl = buf[14];
        base = v == 0 ? 24 : 28;
    } else {
        so = buf[9];
        sl = buf[10];
        base = 12;
    }
    if (v > 3 || so != 8 || sl != 8 || le(buf + base, 8) != 0)
        return damaged(diag, file, "superblock of an unexpected layout", 8);

    /* Dense attribute storage needs a v2 B-tree indexing attribute names
     * (format spec III.A.2: "BTHD", version 0, type 8; creation order:
     * type 9), which libhdf5 reads only with that signature and type.
     * Without one in the file no object can have dense attributes. Bytes
     * that merely look like one only cost the full walk. */
    dense_attrs = 1;
    int rc = 0;
    const unsigned char *end = buf + len;
    for (const unsigned char *p = next_sig(buf, end); p && !rc; p = next_sig(p + 1, end)) {
        size_t off = (size_t)(p - buf);
        if (p[0] == 'B') {
            if (len - off < 6 || p[4] != 0 || p[5] == 8 || p[5] == 9)
                dense_attrs = 2;
            continue;
        }
        if (len - off < 5 || p[4] != 1)
            continue; /* not a collection of version 1 */
        const char *why = len - off < HDR ? "truncated global heap collection" : NULL;
        if (!why)
            why = walk(buf, len, off);
        if (why)
            rc = damaged(diag, file, why, off);
    }

    return rc;
}

int sl_h5_guard_file(const char *path, sl_diag *diag)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        sl_diag_add(diag, path, 0, "cannot open: %s", strerror(err));
        return -err;
    }
    struct stat st;
    int rc = fstat(fd, &st) ? -errno : 0;
    size_t len = rc ? 0 : (size_t)st.st_size;
    void *map = rc || !len ? MAP_FAILED : mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return damaged(diag, path, "empty or unmappable file", 0);
    rc = sl_h5_guard_image(map, len, path, diag);
    munmap(map, len);
    return rc;
}

void sl_h5_guard_done(void)
{
    file_size = 0;
    dense_attrs = 0;
}

hid_t sl_h5_guard_lapl(void)
{
    static _Thread_local hid_t lapl = -1;
    if (lapl < 0 || H5Iis_valid(lapl) <= 0) {
        lapl = H5Pcreate(H5P_LINK_ACCESS);
        /* one soft link at most (libhdf5 allows no less): no loops */
        if (lapl >= 0 && H5Pset_nlinks(lapl, 1) < 0) {
            H5Pclose(lapl);
            lapl = -1;
        }
    }
    return lapl >= 0 ? lapl : H5P_DEFAULT;
}

int sl_h5_guard_hard(hid_t loc, const char *name)
{
    H5L_info_t info;
    if (H5Lget_info(loc, name, &info, H5P_DEFAULT) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    return info.type == H5L_TYPE_HARD;
}

/* The file's size: the one the guard saw, else libhdf5's. */
static uint64_t size_of_file(hid_t obj)
{
    if (file_size)
        return file_size;
    hid_t f = H5Iget_file_id(obj);
    hsize_t s = 0;
    if (f < 0 || H5Fget_filesize(f, &s) < 0)
        s = 0;
    if (f >= 0)
        H5Fclose(f);
    H5Eclear2(H5E_DEFAULT);
    return s;
}

/* Below these the allocation is small whatever the file says: no question
 * asked of libhdf5 (most datasets and attributes of a real file). */
#define SMALL_DATA 8192  /* elements: 64 KiB read as int64 or double */
#define SMALL_ATTR 4096  /* elements */

int sl_h5_guard_dataset(hid_t d, uint64_t n)
{
    /* the reader reads every dataset as 8-byte values: n x 8 allocated */
    if (n <= SMALL_DATA)
        return 0;
    uint64_t storage = H5Dget_storage_size(d);
    uint64_t fsize = size_of_file(d);
    if (fsize && storage > fsize)
        return -EINVAL;
    if (n > UINT64_MAX / 8 || n * 8 / 64 > storage + 1024)
        return -EINVAL;
    return 0;
}

int sl_h5_guard_attr(hid_t a, uint64_t n)
{
    if (n <= SMALL_ATTR)
        return 0;
    hid_t t = H5Aget_type(a);
    size_t el = t >= 0 ? H5Tget_size(t) : 0;
    if (t >= 0)
        H5Tclose(t);
    uint64_t fsize = size_of_file(a);
    if (!el || n > UINT64_MAX / el)
        return -EINVAL;
    return fsize && n * el > fsize ? -EINVAL : 0;
}

static herr_t compact_attrs(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    (void)obj;
    (void)name;
    (void)data;
    return info->meta_size.attr.heap_size > 0 || info->meta_size.attr.index_size > 0 ? 1 : 0;
}

int sl_h5_guard_copyable(hid_t loc, const char *name)
{
    if (dense_attrs == 1)
        return 0; /* the file's bytes rule it out: no walk */
    herr_t rc = H5Ovisit_by_name2(loc, name, H5_INDEX_NAME, H5_ITER_INC, compact_attrs, NULL,
                                  H5O_INFO_META_SIZE, sl_h5_guard_lapl());
    H5Eclear2(H5E_DEFAULT);
    return rc == 0 ? 0 : rc > 0 ? 1 : -EINVAL;
}
