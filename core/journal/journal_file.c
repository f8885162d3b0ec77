/* A journal file as the reader sees it (see journal_file.h). */
#include "journal_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int sl_jf_check(const jfile *j, const char *name, sl_diag *d)
{
    if (j->size < SL_JRN_HEADER_BYTES || memcmp(j->h->magic, SL_JRN_MAGIC, sizeof SL_JRN_MAGIC) != 0 ||
        j->h->header_bytes != SL_JRN_HEADER_BYTES || j->h->align != SL_JRN_ALIGN ||
        j->h->used < SL_JRN_HEADER_BYTES || j->h->used > j->size) {
        sl_diag_add(d, name, 0, "not a scope-likwid journal: expected '%.22s' and a valid header",
                    SL_JRN_MAGIC);
        return -EINVAL;
    }
    return 0;
}

int sl_jf_open(const char *path, jfile *j, sl_diag *d)
{
    memset(j, 0, sizeof *j);
    /* never waits (a FIFO planted under a journal's name), never follows a link */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        sl_diag_add(d, path, 0, "cannot open: %s", strerror(e));
        return -e;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < SL_JRN_HEADER_BYTES) {
        close(fd);
        sl_diag_add(d, path, 0, "not a scope-likwid journal: expected a regular file of at "
                    "least %d bytes", SL_JRN_HEADER_BYTES);
        return -EINVAL;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (m == MAP_FAILED) {
        sl_diag_add(d, path, 0, "cannot map: %s", strerror(e));
        return -e;
    }
    j->p = m;
    j->size = (size_t)st.st_size;
    j->h = m;
    int rc = sl_jf_check(j, path, d);
    if (rc)
        munmap(m, j->size);
    return rc;
}

void sl_jf_close(jfile *j)
{
    if (j->p)
        munmap((void *)j->p, j->size);
}

/* The file offset of an address of the writing process holding n bytes
 * (all in one piece), or SIZE_MAX when it is not inside the file. */
size_t sl_jf_off(const jfile *j, uint64_t addr, size_t n)
{
    size_t lo = 0, hi = j->npieces;
    while (lo < hi) {       /* the last piece that starts at or below addr */
        size_t mid = (lo + hi) / 2;
        if (j->pieces[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return SIZE_MAX;
    const jpiece *pc = &j->pieces[lo - 1];
    uint64_t o = addr - pc->addr;
    return o <= pc->len && n <= pc->len - o ? pc->off + (size_t)o : SIZE_MAX;
}

static int by_addr(const void *a, const void *b)
{
    uint64_t x = ((const jpiece *)a)->addr, y = ((const jpiece *)b)->addr;
    return x < y ? -1 : x > y;
}

/* The pieces: the first at base, then one per PIECE record. */
int sl_jf_pieces(jfile *j)
{
    size_t cap = 16, used = (size_t)j->h->used;
    j->pieces = malloc(cap * sizeof *j->pieces);
    if (!j->pieces)
        return -ENOMEM;
    size_t first = j->h->first_piece && j->h->first_piece < j->size ? (size_t)j->h->first_piece
                                                                      : j->size;
    j->pieces[0] = (jpiece){.addr = j->h->base, .off = 0, .len = first};
    j->npieces = 1;
    for (size_t o = SL_JRN_HEADER_BYTES; o + sizeof(sl_jrn_rec) <= used;) {
        const sl_jrn_rec *rec = (const void *)(j->p + o);
        if (rec->bytes < sizeof *rec || rec->bytes > used - o || rec->bytes % SL_JRN_ALIGN)
            break;
        if (rec->kind == SL_JRN_PIECE && rec->bytes >= sizeof *rec + sizeof(sl_jrn_piece)) {
            const sl_jrn_piece *pc = (const void *)(rec + 1);
            if (j->npieces == cap) {
                cap *= 2;
                jpiece *g = realloc(j->pieces, cap * sizeof *g);
                if (!g)
                    return -ENOMEM;
                j->pieces = g;
            }
            size_t len = pc->bytes < j->size - o ? (size_t)pc->bytes : j->size - o;
            j->pieces[j->npieces++] = (jpiece){.addr = pc->addr, .off = o, .len = len};
        }
        o += (size_t)rec->bytes;
    }
    qsort(j->pieces, j->npieces, sizeof *j->pieces, by_addr);
    return 0;
}

