/* The crash-safe journal, the shim's side (journal_map.h; the format is
 * core/journal/journal.h).
 *
 * The file is mapped in pieces as it is used, never as a whole: a large
 * mapping is what mlockall(MCL_CURRENT | MCL_FUTURE) would populate and
 * lock (the process OOM-killed inside Init), and what RLIMIT_AS would
 * count. The first piece is 64 KiB (what ulimit -v takes from the
 * application at Init), each next one twice the last up to 1 MiB, then an
 * eighth of what is used so far (at most 64 MiB: few mappings for a large
 * journal). Space is handed out from one
 * bump pointer (records and sample chunks alike, never freed) and each
 * piece is allocated on disk (fallocate) before the hot path may touch it:
 * a page of a MAP_SHARED file that the file system cannot back (disk full,
 * quota, tmpfs full) would kill the application with SIGBUS. The file grows
 * with its pieces (its size, in ls -l and on disk, is what it holds up to
 * the end of the last piece, at most DEFAULT_BYTES or what Init allowed).
 *
 * The file's descriptor is kept from Init (close-on-exec, above the low
 * numbers) so that a full descriptor table (RLIMIT_NOFILE reached, or
 * lowered) costs no piece; before each use it is checked to be still this
 * file (an application may close descriptors it did not open), else the
 * file is reopened by its path for the one use. */
#include "journal_map.h"
#include "fileio.h"
#include "trusted_dir.h"
#include "name_fit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#define DEFAULT_BYTES ((size_t)16 << 30)    /* at most: the file grows piece by piece */
#define MIN_BYTES ((size_t)4 << 20)
#define PIECE_FIRST ((size_t)64 << 10)
#define PIECE_MIN ((size_t)1 << 20)
#define PIECE_MAX ((size_t)64 << 20)
#define FD_FLOOR 64                         /* the kept descriptor, above the low numbers */

sl_jrn_header *jh;                   /* NULL: no journal */
size_t jsize;                        /* the most the file may grow to */
char jpath[PATH_MAX];
dev_t jdev;
ino_t jino;
int jfd = -1;                        /* kept from Init; -1: closed */
_Atomic int jclosed;                 /* delivered: no more allocations */
pthread_mutex_t jlock = PTHREAD_MUTEX_INITIALIZER;
/* The piece allocations come from (under jlock): file offsets and where
 * they are mapped. */
size_t piece_off, piece_len;
char *piece_at;
/* Every piece mapped so far (under jlock): what a later cycle's journal
 * copies and maps again at the same addresses (sl_journal_renew). */
struct mapped_piece pieces[MAX_PIECES];
size_t npieces;              /* MAX_PIECES + 1: too many to renew */

static void piece_note(char *at, size_t off, size_t len)
{
    if (npieces < MAX_PIECES)
        pieces[npieces] = (struct mapped_piece){at, off, len};
    if (npieces <= MAX_PIECES)
        npieces++;
}

const char *sl_journal_path(void)
{
    return jh && !jclosed ? jpath : "";
}

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

/* A descriptor of the journal for one use: the kept one when it is still
 * our file, else the file reopened by its path (*opened set: close it). */
static int journal_fd(int *opened)
{
    struct stat st;
    *opened = 0;
    if (jfd >= 0 && fstat(jfd, &st) == 0 && st.st_dev == jdev && st.st_ino == jino)
        return jfd;
    jfd = -1;           /* not ours any more: never touch that number again */
    int fd = sl_at_open(jpath, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) != 0 || st.st_dev != jdev || st.st_ino != jino) {
        close(fd);
        return -ESTALE;     /* replaced or removed: not ours any more */
    }
    *opened = 1;
    return fd;
}

/* Backs [off, off + len) of fd with disk blocks, the file growing to
 * off + len where it is shorter (it holds what is used, up to the piece
 * being taken: no sparse size); 0 or -errno. Never past RLIMIT_FSIZE
 * (lowered since Init): growing past it raises SIGXFSZ, which ends the
 * process. */
int back(int fd, size_t off, size_t len)
{
    struct rlimit fs;
    if (getrlimit(RLIMIT_FSIZE, &fs) == 0 && fs.rlim_cur != RLIM_INFINITY && off + len > fs.rlim_cur)
        return -EFBIG;
    /* A limit lowered by another thread meanwhile: the growth fails with
     * EFBIG and its SIGXFSZ (blocked here) is taken back, unless one was
     * pending before. */
    sl_sig_held xfsz;
    sl_sig_hold(SIGXFSZ, &xfsz);
    int rc = fallocate(fd, 0, (off_t)off, (off_t)len) == 0 ? 0 : -errno;
    if (rc == -EOPNOTSUPP) {
        /* E.g. older NFS: write the zeros. */
        static const char zero[4096];       /* not on the stack: any thread's */
        rc = 0;
        for (size_t o = off; o < off + len && rc == 0; o += sizeof zero)
            if (pwrite(fd, zero, sizeof zero, (off_t)o) != (ssize_t)sizeof zero)
                rc = errno == EFBIG ? -EFBIG : -EIO;
    }
    sl_sig_release(&xfsz, rc == -EFBIG);
    return rc;
}

/* Maps len bytes of the file at off, backed on disk first; NULL on failure. */
static void *map_piece(size_t off, size_t len)
{
    if (!sl_rt_reserve(len))
        return NULL;
    int opened, fd = journal_fd(&opened);
    void *m = MAP_FAILED;
    if (fd >= 0 && back(fd, off, len) == 0)
        m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
    if (opened)
        close(fd);
    if (m == MAP_FAILED) {
        sl_rt_unreserve(len);
        return NULL;
    }
    /* A recent (TSC, clock) pair: converts the ticks when the journal is
     * read on another boot (else the reader takes its own). */
    int64_t t0, n0, t1, n1;
    sl_rt_clock_pairs(&t0, &n0, &t1, &n1);
    __atomic_store_n(&jh->tick1, t1, __ATOMIC_RELAXED);
    __atomic_store_n(&jh->ns1, n1, __ATOMIC_RELAXED);
    return m;
}

/* Room for len bytes (a multiple of the alignment) in the current piece, or
 * in a new one; its address, NULL when the journal is full or no piece can
 * be mapped. Sample chunks leave the last eighth of the journal to the
 * tables and entries: when it fills, a thread's later samples go to the
 * pool (counted per thread in the journal) before any thread or region is
 * left out of it. Under jlock. */
static void *take(size_t len, int kind)
{
    size_t used = (size_t)jh->used;
    if (jclosed || (kind == SL_JRN_ARENA && used + len > jsize - jsize / 8))
        return NULL;
    if (used + len <= piece_off + piece_len)
        return piece_at + (used - piece_off);
    /* A new piece where the current one ends, starting with its record. */
    size_t pg = page_size(), end = piece_off + piece_len;
    size_t want = used / 8 < PIECE_MIN ? PIECE_MIN : used / 8 > PIECE_MAX ? PIECE_MAX : used / 8;
    if (piece_len < PIECE_MIN / 2)
        want = 2 * piece_len;       /* small at first: 64 KiB, 128 KiB, ... */
    size_t need = (len + sizeof(sl_jrn_rec) + SL_JRN_ALIGN + pg - 1) / pg * pg;
    if (want < need)
        want = need;
    want = want / pg * pg;
    if (end >= jsize || jsize - end < need)
        return NULL;
    if (want > jsize - end)
        want = (jsize - end) / pg * pg;
    char *m = map_piece(end, want);
    if (!m)
        return NULL;
    size_t head = (sizeof(sl_jrn_rec) + sizeof(sl_jrn_piece) + SL_JRN_ALIGN - 1) / SL_JRN_ALIGN *
                  SL_JRN_ALIGN;
    sl_jrn_rec *r = (sl_jrn_rec *)m;
    sl_jrn_piece *pc = (sl_jrn_piece *)(r + 1);
    pc->addr = (uint64_t)(uintptr_t)m;
    pc->bytes = want;
    __atomic_store_n(&r->bytes, head, __ATOMIC_RELEASE);
    __atomic_store_n(&r->kind, SL_JRN_PIECE, __ATOMIC_RELEASE);
    if (used < end) {
        /* The old piece's tail: a record of kind 0, which readers skip. */
        sl_jrn_rec *tail = (sl_jrn_rec *)(piece_at + (used - piece_off));
        __atomic_store_n(&tail->bytes, end - used, __ATOMIC_RELEASE);
    }
    jh->used = end + head;
    piece_off = end;
    piece_len = want;
    piece_at = m;
    piece_note(m, end, want);
    return m + head;
}

void *sl_journal_alloc(int kind, size_t bytes, const void *owner)
{
    if (!jh)
        return NULL;
    size_t len = (sizeof(sl_jrn_rec) + bytes + SL_JRN_ALIGN - 1) / SL_JRN_ALIGN * SL_JRN_ALIGN;
    pthread_mutex_lock(&jlock);
    void *obj = NULL;
    sl_jrn_rec *r = take(len, kind);
    if (r) {
        r->owner = (uint64_t)(uintptr_t)owner;
        r->reserved = (uint32_t)kind;       /* the kind, until committed */
        __atomic_store_n(&r->bytes, len, __ATOMIC_RELEASE);
        jh->used += len;
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

void sl_journal_mark_unsaved(void)
{
    if (jh && !jclosed && getpid() == (pid_t)jh->pid)
        __atomic_store_n(&jh->state, SL_JRN_UNSAVED, __ATOMIC_RELEASE);
}

void sl_journal_mark_delivering(const char *rescue)
{
    size_t n = strlen(rescue);
    if (!jh || jclosed || getpid() != (pid_t)jh->pid || n >= sizeof jh->rescue)
        return;     /* a name too long to note: recover reads the journal as before */
    memcpy(jh->rescue, rescue, n + 1);
    __atomic_store_n(&jh->state, SL_JRN_DELIVERING, __ATOMIC_RELEASE);
}

void sl_journal_note_outside(int entry)
{
    if (jh && !jclosed)
        __atomic_fetch_add(entry ? &jh->outside_entries : &jh->outside_tables, 1,
                           __ATOMIC_RELAXED);
}

/* A journal's name: beside the result (DIR NULL: OUTPUT.journal), or in
 * DIR named after the result and the process (BASE.PID.journal); NULL when
 * it does not fit. */
char *sl_journal_name(const char *dir, const char *output, pid_t pid)
{
    if (!dir)
        return sl_name_fit(output, "", ".journal");
    const char *base = strrchr(output, '/');
    base = base ? base + 1 : output;
    char suffix[64];
    snprintf(suffix, sizeof suffix, ".%lld.journal", (long long)pid);
    return sl_name_fit_in(dir, "", base, suffix);
}

int sl_journal_give(uid_t uid, const char *dir, const char *output, pid_t pid)
{
    pthread_mutex_lock(&jlock);
    int rc = 0;
    if (!jh || jclosed || getpid() != (pid_t)jh->pid) {
        pthread_mutex_unlock(&jlock);
        return -ENOENT;
    }
    if (dir) {
        char *to = sl_journal_name(dir, output, pid);
        if (!to || strlen(to) >= sizeof jpath)
            rc = -ENAMETOOLONG;
        else if (sl_at_rename(jpath, to, RENAME_NOREPLACE) != 0)
            rc = -errno;
        else
            memcpy(jpath, to, strlen(to) + 1);
        free(to);
    }
    if (rc == 0) {
        /* the new user's now: its process goes on mapping and removes it */
        int opened, fd = journal_fd(&opened);
        if (fd >= 0 && fchown(fd, uid, (gid_t)-1) != 0)
            rc = -errno;
        if (fd >= 0 && opened)
            close(fd);
    }
    pthread_mutex_unlock(&jlock);
    return rc;
}

int sl_journal_spare_fd(void)
{
    pthread_mutex_lock(&jlock);
    struct stat st;
    int freed = jfd >= 0 && fstat(jfd, &st) == 0 && st.st_dev == jdev && st.st_ino == jino &&
                close(jfd) == 0;
    jfd = -1;
    pthread_mutex_unlock(&jlock);
    return freed;
}

void sl_journal_mark_signal(int sig)
{
    sl_jrn_header *h = jh;
    /* A forked child shares the mapping: only the writer's own signal. */
    if (!h || getpid() != (pid_t)h->pid)
        return;
    /* The first signal of a round is the one its writer reports. */
    if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == SL_JRN_SIGNALED)
        return;
    __atomic_store_n(&h->signal_ns, sl_clock_ns(CLOCK_MONOTONIC), __ATOMIC_RELAXED);
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
    if (sl_at_stat(jpath, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == jdev &&
        st.st_ino == jino)
        sl_at_unlink(jpath);
    /* The mappings stay: the tables live in them. No more allocations. */
    pthread_mutex_lock(&jlock);
    jclosed = 1;
    struct stat fst;
    if (jfd >= 0 && fstat(jfd, &fst) == 0 && fst.st_dev == jdev && fst.st_ino == jino)
        close(jfd);     /* only when still ours */
    jfd = -1;
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

/* A forked child does not keep the parent's descriptor (it is no
 * descriptor the child opened; its number only, the mapping stays), and
 * the lock may have been held by a thread that does not exist in it. */
static void atfork_child(void)
{
    if (jfd >= 0)
        close(jfd);
    jfd = -1;
    pthread_mutex_init(&jlock, NULL);
}

void sl_journal_fork_forget(void)
{
    /* The parent's pieces stay mapped (nothing points into them any more:
     * the region table forgot its threads); nothing is written to them. */
    jh = NULL;
    jsize = 0;
    jpath[0] = '\0';
    jfd = -1;
    atomic_store(&jclosed, 0);
    piece_off = piece_len = 0;
    piece_at = NULL;
    npieces = 0;
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, atfork_child);
}

/* The journal's descriptor, kept from now on, above the numbers an
 * application expects to get. */
void keep_fd(int fd, const struct stat *st)
{
    int high = fcntl(fd, F_DUPFD_CLOEXEC, FD_FLOOR);
    if (high >= 0) {
        close(fd);
        fd = high;
    }
    jfd = fd;
    jdev = st->st_dev;
    jino = st->st_ino;
}

/* The file, its first piece backed (the file's size) and mapped. */
static int create_at(const char *path, size_t size)
{
    int fd = sl_at_create_private(path, O_RDWR);
    if (fd < 0)
        return -errno;
    struct stat st;
    void *m = MAP_FAILED;
    size_t first = PIECE_FIRST < size ? PIECE_FIRST : size;
    int rc = 0;
    /* The owner's alone whatever the umask: the process maps it and follows
     * the pointers in it, and it holds the command line (docs/SECURITY.md);
     * readable and writable by the owner (recover must open it). */
    if (fstat(fd, &st) != 0 || fchmod(fd, SL_MODE_PRIVATE) != 0)
        rc = -errno;
    if (rc == 0 && !sl_rt_reserve(first))
        rc = -ENOMEM;
    else if (rc == 0 && (rc = back(fd, 0, first)) != 0)
        sl_rt_unreserve(first);
    if (rc == 0) {
        m = mmap(NULL, first, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            rc = -errno;
            sl_rt_unreserve(first);
        }
    }
    if (rc != 0) {
        close(fd);
        sl_at_unlink(path);
        return rc;
    }
    keep_fd(fd, &st);
    static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
    pthread_once(&atfork_once, register_atfork);
    jh = m;
    jsize = size;
    piece_off = 0;
    piece_len = first;
    piece_at = m;
    npieces = 0;
    piece_note(m, 0, first);
    snprintf(jpath, sizeof jpath, "%s", path);
    return 0;
}

/* first_only: up to the first NUL (SCOPE_LIKWID_ARGS=0: the program's
 * name without its arguments). */
static void read_text(const char *path, char *dst, size_t cap, unsigned flags)
{
    char *t = sl_read_text(path, 1 << 16, flags | SL_TEXT_STRIP_NEWLINE);
    size_t len = t ? strlen(t) : 0;
    if (len >= cap)
        len = cap - 1;
    if (t)
        memcpy(dst, t, len);
    dst[len] = '\0';
    free(t);
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
    h->parent_pid = in->parent_pid;
    h->start_ticks = sl_jrn_start_ticks(in->pid);
    read_text("/proc/sys/kernel/random/boot_id", h->boot_id, sizeof h->boot_id, 0);
    h->rank = in->rank;
    h->mpi = in->mpi;
    h->origin_unix_ns = in->origin_unix_ns;
    h->tsc = in->tsc;
    sl_rt_clock_pairs(&h->tick0, &h->ns0, &h->tick1, &h->ns1);
    h->cycle = 1;
    h->batch_first = 0;
    h->first_piece = piece_len;
    snprintf(h->output, sizeof h->output, "%s", in->output);
    if (in->prov)
        h->prov = *in->prov;
    if (in->run_id && strlen(in->run_id) < sizeof h->run_id)
        memcpy(h->run_id, in->run_id, strlen(in->run_id) + 1);   /* whole, or not at all */
    gethostname(h->hostname, sizeof h->hostname - 1);
    h->pid_ns = sl_jrn_pid_ns();
    char *exe = realpath("/proc/self/exe", NULL);
    if (exe)
        snprintf(h->executable, sizeof h->executable, "%s", exe);
    free(exe);
    read_text("/proc/self/cmdline", h->command_line, sizeof h->command_line,
              SL_TEXT_NUL_TO_BLANK | (sl_g.cfg.keep_args ? 0 : SL_TEXT_FIRST_ONLY));
    __atomic_store_n(&h->state, SL_JRN_RUNNING, __ATOMIC_RELEASE);
}

int sl_journal_begin(const sl_journal_in *in)
{
    size_t size = pick_size(in->bytes ? in->bytes : DEFAULT_BYTES, sl_rt_budget());
    if (size < MIN_BYTES)
        return -ENOMEM;
    /* beside the result, else the spare directories ($TMPDIR, /tmp: each
     * only where no other user can change what is in it) */
    int rc = -ENOENT;
    for (int i = -1; i < 2 && rc != 0; i++) {
        if (i >= 0 && !sl_spare_dir(i))
            continue;
        char *path = sl_journal_name(i < 0 ? NULL : sl_spare_dir(i), in->output, in->pid);
        rc = path ? create_at(path, size) : -ENAMETOOLONG;
        free(path);
    }
    if (rc != 0)
        return rc;
    fill_header(in);
    return 0;
}

/* ---- a later cycle's journal ---- */
