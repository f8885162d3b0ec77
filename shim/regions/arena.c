/* The per-thread sample chunks, the pool for tables without a journal,
 * what an ended thread gives back, the rare paths' signal mask. */
#include "hot_path.h"

#include <string.h>
#include <sys/mman.h>

/* The per-thread sample store: chunks that grow with use, so that keeping
 * a sample on the hot path is three stores and no allocation, and a thread
 * holds only about what it has used. A thread's first chunk holds about
 * 170 samples; each next one is twice the last, up to 256 KiB. Chunks are
 * in the journal when there is one (the samples survive a kill), else in
 * the pool below: nothing large is ever mapped, so mlockall() locks about
 * what is used, and 1024 threads alive at once fit.
 *
 * Address space is not free under `ulimit -v` (common on login and batch
 * nodes): the pool and the journal's pieces together take at most a
 * quarter of RLIMIT_AS. A thread takes at most 256 MiB of samples; calls
 * that find no room are counted as dropped (room_dropped says how many),
 * the figures stay exact. */
#define DEFAULT_CAP ((size_t)256 << 20)    /* sample bytes per thread at most */
#define FIRST_CHUNK ((size_t)4 << 10)
#define MAX_CHUNK ((size_t)256 << 10)

/* Every thread's table, newest first (lock-free push in sl_rt_self). */
_Atomic(sl_rt_thread *) sl_rt_all_threads;

static _Atomic size_t cfg_cap = DEFAULT_CAP;

void sl_rt_arena_configure(size_t bytes)
{
    atomic_store(&cfg_cap, bytes ? bytes : DEFAULT_CAP);
}

/* ---- the pool: memory for the tables when there is no journal ---- */

/* Bump allocation from anonymous mappings of 64 KiB, each next one twice
 * the last up to 1 MiB (more for a larger object; small at first: ulimit -v
 * counts them), never freed (Close may be reading), zeroed: the tables, entries
 * and sample chunks of every thread when there is no journal (or it is
 * full). Not malloc: the first malloc in a thread makes glibc reserve a
 * 64 MiB arena for it, which mlockall() counts as locked, and a leak
 * checker does not scan the journal that may point here. */
#define POOL_FIRST ((size_t)64 << 10)
#define POOL_PIECE ((size_t)1 << 20)

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static char *pool_next, *pool_end;
static size_t pool_piece = POOL_FIRST;     /* the next piece's size */

/* What threads that ended gave back (under pool_lock): their caches, and
 * the unused rests of their chunks (each a node where its samples would
 * have gone), taken for the first chunk of a new thread. */
typedef struct spare {
    struct spare *next;
    size_t bytes;                       /* low bit: in the journal */
} spare;
static sl_rt_ctx *free_ctx;
static spare *spares;

void sl_rt_pool_fork_child(void)
{
    pthread_mutex_init(&pool_lock, NULL);  /* maybe held by a thread the child has not */
    free_ctx = NULL;                        /* the parent's threads' */
    spares = NULL;                          /* maybe in the parent's journal */
}

void *sl_rt_pool_alloc(size_t bytes)
{
    bytes = (bytes + 63) / 64 * 64;
    pthread_mutex_lock(&pool_lock);
    void *p = NULL;
    if (bytes <= (size_t)(pool_end - pool_next)) {
        p = pool_next;
        pool_next += bytes;
    } else {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        size_t len = bytes > pool_piece ? (bytes + page - 1) / page * page : pool_piece;
        char *m = MAP_FAILED;
        if (sl_rt_reserve(len)) {
            m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
            if (m == MAP_FAILED)
                sl_rt_unreserve(len);
        }
        if (m != MAP_FAILED) {
            p = m;
            if (pool_piece < POOL_PIECE)
                pool_piece *= 2;
            if (len - bytes > (size_t)(pool_end - pool_next)) {   /* keep the roomier piece */
                pool_next = m + bytes;
                pool_end = m + len;
            }
        }
    }
    pthread_mutex_unlock(&pool_lock);
    return p;
}

sl_rt_ctx *sl_rt_ctx_take(void)
{
    pthread_mutex_lock(&pool_lock);
    sl_rt_ctx *c = free_ctx;
    if (c)
        free_ctx = c->free_next;
    pthread_mutex_unlock(&pool_lock);
    if (c)
        memset(c, 0, sizeof *c);
    else
        c = sl_rt_pool_alloc(sizeof *c);
    return c;
}

/* The unused rest of a chunk, worth a first chunk of its own. */
#define SPARE_MIN (sizeof(sl_rt_chunk) + 16 * sizeof(sample))
#define IN_JOURNAL ((size_t)1)              /* low bit of a chunk's bytes */

void sl_rt_retire(sl_rt_thread *t, sl_rt_ctx *c)
{
    sl_rt_chunk *ch = t->cur;
    sample *s = atomic_load_explicit(&t->snext, RELAXED);
    spare *sp = NULL;
    if (ch && s >= sl_rt_chunk_samples(ch) && s <= ch->end &&
        (size_t)((char *)ch->end - (char *)s) >= SPARE_MIN) {
        size_t rest = (size_t)((char *)ch->end - (char *)s);
        /* The chunk ends where its samples do (a reader of the journal
         * stops there: the thread's snext), before the rest is reused. */
        ch->end = s;
        t->end = s;
        atomic_thread_fence(memory_order_release);
        sp = (spare *)(void *)s;
        sp->bytes = rest | (ch->bytes & IN_JOURNAL);
    }
    pthread_mutex_lock(&pool_lock);
    if (c) {
        c->free_next = free_ctx;
        free_ctx = c;
    }
    if (sp) {
        sp->next = spares;
        spares = sp;
    }
    pthread_mutex_unlock(&pool_lock);
}

static spare *spare_take(void)
{
    pthread_mutex_lock(&pool_lock);
    spare *sp = spares;
    if (sp)
        spares = sp->next;
    pthread_mutex_unlock(&pool_lock);
    return sp;
}

/* ---- the chunks ---- */

/* A chunk for n samples at most (at least one); NULL when there is no room.
 * In the journal unless an earlier chunk of the thread was not (a reader
 * of the journal follows the chain as far as it is in the file). */
static sl_rt_chunk *chunk_new(sl_rt_thread *t, size_t n)
{
    size_t bytes = sizeof(sl_rt_chunk) + n * sizeof(sample), flag = IN_JOURNAL;
    int outside = t->cur && !(t->cur->bytes & IN_JOURNAL);
    sl_rt_chunk *c = outside ? NULL : sl_journal_alloc(SL_JRN_ARENA, bytes, t);
    if (c) {
        sl_journal_commit(c);
    } else {
        if (!(c = sl_rt_pool_alloc(bytes)))
            return NULL;
        flag = 0;
    }
    atomic_init(&c->next, NULL);
    c->fill = NULL;
    c->end = sl_rt_chunk_samples(c) + n;
    c->bytes = bytes | flag;
    t->mapped += bytes;
    return c;
}

/* A thread's first chunk from the rest of an ended thread's (it lies
 * before any chunk allocated later: a thread's chunks stay in file order). */
static sl_rt_chunk *chunk_spare(sl_rt_thread *t)
{
    spare *sp = spare_take();
    if (!sp)
        return NULL;
    size_t bytes = sp->bytes & ~IN_JOURNAL, flag = sp->bytes & IN_JOURNAL;
    sl_rt_chunk *c = (sl_rt_chunk *)(void *)sp;
    size_t n = (bytes - sizeof *c) / sizeof(sample);
    atomic_init(&c->next, NULL);
    c->fill = NULL;
    c->end = sl_rt_chunk_samples(c) + n;
    for (sample *s = sl_rt_chunk_samples(c); s < c->end; s++)
        s->e = NULL;    /* none taken yet (a reader skips them) */
    c->bytes = bytes | flag;
    t->mapped += bytes;
    return c;
}

/* The current chunk is full (or there is none yet): the next one, reused
 * from an earlier cycle or new. 0, or -1 when there is no room. */
static COLD int chunk_next(sl_rt_thread *t, sample *s)
{
    sl_rt_chunk *c = t->cur, *n = c ? atomic_load_explicit(&c->next, RELAXED) : NULL;
    if (!n && !c && !atomic_load_explicit(&t->arena, RELAXED))
        n = chunk_spare(t);
    if (!n) {
        size_t cap = atomic_load(&cfg_cap), used = t->mapped;
        size_t want = c ? 2 * (c->bytes & ~IN_JOURNAL) : FIRST_CHUNK;
        if (want > MAX_CHUNK)
            want = MAX_CHUNK;
        size_t room = cap > used ? cap - used : 0;
        size_t samples = (want - sizeof(sl_rt_chunk)) / sizeof(sample);
        if (samples > room / sizeof(sample))
            samples = room / sizeof(sample);
        if (samples == 0 || !(n = chunk_new(t, samples)))
            return -1;
    }
    if (c) {
        c->fill = s;
        if (!(c->bytes & IN_JOURNAL))
            atomic_store_explicit(&t->outside,
                                  atomic_load_explicit(&t->outside, RELAXED) +
                                      (s - sl_rt_chunk_samples(c)), RELAXED);
        atomic_store_explicit(&c->next, n, memory_order_release);
    } else {
        atomic_store_explicit(&t->arena, n, memory_order_release);
    }
    t->cur = n;
    t->end = n->end;
    /* Publishes the chunk to Close and to a reader of the journal. */
    atomic_store_explicit(&t->snext, sl_rt_chunk_samples(n), memory_order_release);
    return 0;
}

/* The synchronous signals stay deliverable: blocked while raised by a
 * fault, they would end the process. */
void sl_rt_quiet_begin(sigset_t *old)
{
    static const int sync[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
    sigset_t all;
    sigfillset(&all);
    for (size_t i = 0; i < sizeof sync / sizeof sync[0]; i++)
        sigdelset(&all, sync[i]);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

void sl_rt_quiet_end(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Under the cap, but there is no chunk yet, or it is full. */
COLD void sl_rt_record_slow(sl_rt_thread *t, sl_rt_entry *e, int64_t start, int64_t end)
{
    sigset_t old;
    sl_rt_quiet_begin(&old);
    /* No handler runs on this thread from here: snext is ours alone. */
    sample *s = atomic_load_explicit(&t->snext, RELAXED);
    if (!t->store_full && (!s || s >= t->end)) {
        if (chunk_next(t, s) == 0)
            s = atomic_load_explicit(&t->snext, RELAXED);
        else
            t->store_full = 1;
    }
    if (s && s < t->end) {
        atomic_store_explicit(&t->snext, s + 1, memory_order_release);
        keep(s, e, start, end);
    } else {
        atomic_store_explicit(&t->room_dropped, atomic_load_explicit(&t->room_dropped, RELAXED) + 1,
                              RELAXED);
        drop(e, end - start);
    }
    sl_rt_quiet_end(&old);
}

int64_t sl_rt_room_dropped(size_t *threads)
{
    int64_t calls = 0;
    *threads = 0;
    for (sl_rt_thread *t = atomic_load_explicit(&sl_rt_all_threads, memory_order_acquire); t;
         t = t->next) {
        int64_t n = atomic_load_explicit(&t->room_dropped, RELAXED);
        calls += n;
        *threads += n > 0;
    }
    return calls;
}

/* A new cycle: the chunks are kept and filled again from the first. */
void sl_rt_arena_rewind(sl_rt_thread *t)
{
    sl_rt_chunk *c = atomic_load_explicit(&t->arena, memory_order_acquire);
    t->cur = c;
    t->end = c ? c->end : NULL;
    t->store_full = 0;
    atomic_store_explicit(&t->outside, 0, RELAXED);
    atomic_store_explicit(&t->room_dropped, 0, RELAXED);
    atomic_store_explicit(&t->snext, c ? sl_rt_chunk_samples(c) : NULL, memory_order_release);
}
