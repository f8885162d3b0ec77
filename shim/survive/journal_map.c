/* The crash-safe journal, the shim's side (see journal_map.h; the format is
 * core/journal/journal.h).
 *
 * Space in the file is handed out from one bump pointer (records and sample
 * arenas alike, never freed; arena tails of exited threads are reused) and
 * allocated on disk (fallocate) before the hot path may touch it: a page of
 * a MAP_SHARED file that the file system cannot back (disk full, quota,
 * tmpfs full) would kill the application with SIGBUS. No descriptor is kept
 * open in the application: each allocation reopens the file by its path and
 * checks it is still the same file. */
#include "journal_map.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "journal.h"
#include "region_table.h"
#include "name_fit.h"

#define DEFAULT_BYTES ((size_t)16 << 30)    /* sparse: only what is used takes room */
#define MIN_BYTES ((size_t)4 << 20)
#define FREE_MAX 64

static sl_jrn_header *jh;                   /* NULL: no journal */
static size_t jsize;
static char jpath[PATH_MAX];
static dev_t jdev;
static ino_t jino;
static pthread_mutex_t jlock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    size_t off, len;
} freelist[FREE_MAX];
static size_t nfree;

const char *sl_journal_path(void)
{
    return jh ? jpath : "";
}

int sl_journal_holds(const void *p)
{
    const char *c = p, *b = (const char *)jh;
    return jh && c >= b && c < b + jsize;
}

/* Backs [off, off + len) with disk blocks; 0 or -errno. */
static int back(size_t off, size_t len)
{
    int fd = open(jpath, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0 || st.st_dev != jdev || st.st_ino != jino)
        rc = -ESTALE;       /* replaced or removed: not ours any more */
    else if (fallocate(fd, 0, (off_t)off, (off_t)len) != 0) {
        rc = -errno;
        if (rc == -EOPNOTSUPP) {        /* e.g. older NFS: write the zeros */
            static const char zero[4096];
            rc = 0;
            for (size_t o = off; o < off + len && rc == 0; o += sizeof zero)
                if (pwrite(fd, zero, sizeof zero, (off_t)o) != (ssize_t)sizeof zero)
                    rc = -EIO;
        }
    }
    close(fd);
    if (rc == 0) {
        /* A recent (TSC, clock) pair: converts the ticks when the journal
         * is read on another boot (else the reader takes its own). */
        int64_t t0, n0, t1, n1;
        sl_rt_clock_pairs(&t0, &n0, &t1, &n1);
        /* From any thread (arena chunks are backed outside jlock). */
        __atomic_store_n(&jh->tick1, t1, __ATOMIC_RELAXED);
        __atomic_store_n(&jh->ns1, n1, __ATOMIC_RELAXED);
    }
    return rc;
}

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

/* Bump allocation of len bytes (a multiple of the alignment); SIZE_MAX when
 * full. Under jlock. */
static size_t bump(size_t len)
{
    size_t off = (size_t)jh->used;
    if (len > jsize - off)
        return SIZE_MAX;
    jh->used = off + len;
    return off;
}

void *sl_journal_alloc(int kind, size_t bytes, const void *owner)
{
    if (!jh)
        return NULL;
    size_t len = (sizeof(sl_jrn_rec) + bytes + SL_JRN_ALIGN - 1) / SL_JRN_ALIGN * SL_JRN_ALIGN;
    pthread_mutex_lock(&jlock);
    size_t off = bump(len);
    size_t pg = page_size(), a = off / pg * pg;
    if (off != SIZE_MAX && back(a, (off + len + pg - 1) / pg * pg - a) != 0) {
        jh->used = off;     /* nothing was written there */
        off = SIZE_MAX;
    }
    void *obj = NULL;
    if (off != SIZE_MAX) {
        sl_jrn_rec *r = (sl_jrn_rec *)((char *)jh + off);
        r->owner = (uint64_t)(uintptr_t)owner;
        __atomic_store_n(&r->bytes, len, __ATOMIC_RELEASE);
        r->reserved = (uint32_t)kind;       /* the kind, until committed */
        obj = r + 1;
    }
    pthread_mutex_unlock(&jlock);
    return obj;
}

void sl_journal_commit(void *obj)
{
    sl_jrn_rec *r = (sl_jrn_rec *)obj - 1;
    __atomic_store_n(&r->kind, r->reserved, __ATOMIC_RELEASE);
}

void *sl_journal_arena(size_t want, size_t min, size_t *got, const void *owner)
{
    if (!jh)
        return NULL;
    size_t pg = page_size();
    want = (want + pg - 1) / pg * pg;
    pthread_mutex_lock(&jlock);
    void *p = NULL;
    /* A tail an exited thread gave back first: sequential threads reuse it. */
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < nfree; i++)
        if (freelist[i].len >= min && (best == SIZE_MAX || freelist[i].len > freelist[best].len))
            best = i;
    if (best != SIZE_MAX) {
        size_t take = freelist[best].len < want ? freelist[best].len : want;
        p = (char *)jh + freelist[best].off;
        *got = take;
        freelist[best].off += take;
        freelist[best].len -= take;
        if (freelist[best].len < min)
            freelist[best] = freelist[--nfree];
    } else {
        /* A record for readers' sake, then page-aligned room. */
        size_t off = (size_t)jh->used, start = (off + sizeof(sl_jrn_rec) + pg - 1) / pg * pg;
        size_t room = jsize > start ? jsize - start : 0;
        size_t take = room < want ? room / pg * pg : want;
        if (take >= min && back(off / pg * pg, start - off / pg * pg) == 0) {
            sl_jrn_rec *r = (sl_jrn_rec *)((char *)jh + off);
            r->owner = (uint64_t)(uintptr_t)owner;
            r->kind = SL_JRN_ARENA;
            __atomic_store_n(&r->bytes, start + take - off, __ATOMIC_RELEASE);
            jh->used = start + take;
            p = (char *)jh + start;
            *got = take;
        }
    }
    pthread_mutex_unlock(&jlock);
    return p;
}

int sl_journal_back(const void *p, size_t len)
{
    size_t pg = page_size(), off = (size_t)((const char *)p - (const char *)jh);
    size_t a = off / pg * pg;
    return back(a, (off + len + pg - 1) / pg * pg - a);
}

int sl_journal_give_back(void *p, size_t bytes)
{
    if (!sl_journal_holds(p) || bytes == 0)
        return 0;
    pthread_mutex_lock(&jlock);
    int ok = nfree < FREE_MAX;
    if (ok) {
        freelist[nfree].off = (size_t)((char *)p - (char *)jh);
        freelist[nfree].len = bytes;
        nfree++;
    }
    pthread_mutex_unlock(&jlock);
    return ok;
}

void sl_journal_mark_signal(int sig)
{
    sl_jrn_header *h = jh;
    /* A forked child shares the mapping: only the writer's own signal. */
    if (!h || getpid() != (pid_t)h->pid)
        return;
    __atomic_store_n(&h->signo, sig, __ATOMIC_RELAXED);
    __atomic_store_n(&h->state, SL_JRN_SIGNALED, __ATOMIC_RELEASE);
}

void sl_journal_end(void)
{
    if (!jh)
        return;
    __atomic_store_n(&jh->state, SL_JRN_CLOSED, __ATOMIC_RELEASE);
    struct stat st;
    /* Only our file: a name someone replaced is left alone. */
    if (lstat(jpath, &st) == 0 && st.st_dev == jdev && st.st_ino == jino)
        unlink(jpath);
    /* The mapping stays: the tables live in it. No more allocations. */
    pthread_mutex_lock(&jlock);
    jh->used = jsize;
    nfree = 0;
    pthread_mutex_unlock(&jlock);
}

/* ---- creation ---- */

static size_t pick_size(size_t want, size_t budget)
{
    struct rlimit fs;
    if (getrlimit(RLIMIT_FSIZE, &fs) == 0 && fs.rlim_cur != RLIM_INFINITY &&
        fs.rlim_cur < want)
        want = (size_t)fs.rlim_cur;     /* never past ulimit -f: SIGXFSZ */
    if (want > budget)
        want = budget;
    return want / page_size() * page_size();
}

static int create_at(const char *path, size_t size)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        return -errno;
    struct stat st;
    void *m = MAP_FAILED;
    int rc = 0;
    if (fstat(fd, &st) != 0 || ftruncate(fd, (off_t)size) != 0 ||
        fallocate(fd, 0, 0, SL_JRN_HEADER_BYTES) != 0)
        rc = -errno;
    if (rc == 0) {
        m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
        if (m == MAP_FAILED)
            rc = -errno;
    }
    close(fd);
    if (rc != 0) {
        unlink(path);
        return rc;
    }
    jh = m;
    jsize = size;
    jdev = st.st_dev;
    jino = st.st_ino;
    snprintf(jpath, sizeof jpath, "%s", path);
    return 0;
}

static void read_text(const char *path, char *dst, size_t cap, int nul_to_blank)
{
    char *buf;
    size_t len;
    dst[0] = '\0';
    if (sl_read_file(path, 1 << 16, &buf, &len) != 0)
        return;
    while (len > 0 && (buf[len - 1] == '\0' || buf[len - 1] == '\n'))
        len--;
    if (len >= cap)
        len = cap - 1;
    for (size_t i = 0; i < len; i++)
        dst[i] = nul_to_blank && buf[i] == '\0' ? ' ' : buf[i];
    dst[len] = '\0';
    free(buf);
}

static void fill_header(const sl_journal_in *in)
{
    sl_jrn_header *h = jh;
    memcpy(h->magic, SL_JRN_MAGIC, sizeof SL_JRN_MAGIC);
    h->header_bytes = SL_JRN_HEADER_BYTES;
    h->align = SL_JRN_ALIGN;
    h->size = jsize;
    h->base = (uint64_t)(uintptr_t)jh;
    h->used = SL_JRN_HEADER_BYTES;
    h->pid = in->pid;
    h->start_ticks = sl_jrn_start_ticks(in->pid);
    read_text("/proc/sys/kernel/random/boot_id", h->boot_id, sizeof h->boot_id, 0);
    h->rank = in->rank;
    h->mpi = in->mpi;
    h->origin_unix_ns = in->origin_unix_ns;
    h->tsc = in->tsc;
    sl_rt_clock_pairs(&h->tick0, &h->ns0, &h->tick1, &h->ns1);
    h->cycle = 1;
    snprintf(h->output, sizeof h->output, "%s", in->output);
    gethostname(h->hostname, sizeof h->hostname - 1);
    char *exe = realpath("/proc/self/exe", NULL);
    if (exe)
        snprintf(h->executable, sizeof h->executable, "%s", exe);
    free(exe);
    read_text("/proc/self/cmdline", h->command_line, sizeof h->command_line, 1);
    __atomic_store_n(&h->state, SL_JRN_RUNNING, __ATOMIC_RELEASE);
}

int sl_journal_begin(const sl_journal_in *in)
{
    size_t size = pick_size(in->bytes ? in->bytes : DEFAULT_BYTES, sl_rt_budget());
    if (size < MIN_BYTES)
        return -ENOMEM;
    char *path = sl_name_fit(in->output, "", ".journal");
    int rc = path ? create_at(path, size) : -ENAMETOOLONG;
    free(path);
    if (rc != 0) {
        /* The output directory will not do: $TMPDIR, else /tmp. */
        const char *base = strrchr(in->output, '/');
        base = base ? base + 1 : in->output;
        const char *tmpdir = secure_getenv("TMPDIR");
        const char *dirs[] = {tmpdir && tmpdir[0] == '/' ? tmpdir : NULL, "/tmp"};
        char suffix[64];
        snprintf(suffix, sizeof suffix, ".%lld.journal", (long long)in->pid);
        for (int i = 0; i < 2 && rc != 0; i++) {
            if (!dirs[i])
                continue;
            path = sl_name_fit_in(dirs[i], "", base, suffix);
            rc = path ? create_at(path, size) : -ENAMETOOLONG;
            free(path);
        }
    }
    if (rc != 0)
        return rc;
    if (!sl_rt_reserve(size)) {
        munmap(jh, jsize);
        unlink(jpath);
        jh = NULL;
        return -ENOMEM;
    }
    fill_header(in);
    return 0;
}
