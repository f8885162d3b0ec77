/* The per-thread sample arena: one address-space reservation per thread
 * (MAP_NORESERVE, pages touched as samples arrive), so that keeping a
 * sample on the hot path is three stores and no allocation.
 *
 * Address space is not free under `ulimit -v` (common on login and batch
 * nodes): all arenas together reserve at most a quarter of RLIMIT_AS, and a
 * thread that exits gives back the part of its arena it did not fill (the
 * samples stay for Close). So an application that runs many threads one
 * after the other reserves about one arena, not one per thread; calls that
 * find no room are counted as dropped, the figures stay exact. */
#include "rt_internal.h"

#include "journal_map.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define DEFAULT_ARENA ((size_t)256 << 20)
#define MIN_ARENA ((size_t)1 << 20)
#define CHUNK ((size_t)1 << 20)         /* journal arenas: disk backed this much at a time */

static _Atomic size_t cfg_arena_bytes = DEFAULT_ARENA;

void sl_rt_arena_configure(size_t bytes)
{
    atomic_store(&cfg_arena_bytes, bytes ? bytes : DEFAULT_ARENA);
}

static _Atomic size_t reserved;         /* bytes of all arenas mapped now */
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;                      /* set under key_once */

static int reserve(size_t bytes, size_t limit);

size_t sl_rt_budget(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return SIZE_MAX;
    return (size_t)(rl.rlim_cur / 4);
}

int sl_rt_reserve(size_t bytes)
{
    return reserve(bytes, sl_rt_budget());
}

static int reserve(size_t bytes, size_t limit)
{
    size_t cur = atomic_load(&reserved);
    do
        if (bytes > limit || cur > limit - bytes)
            return 0;
    while (!atomic_compare_exchange_weak(&reserved, &cur, cur + bytes));
    return 1;
}

/* First sample of the thread: reserve address space only; pages are
 * touched as samples arrive. */
static COLD void arena_map(sl_rt_thread *t)
{
    t->arena_tried = 1;
    /* In the journal (already reserved as a whole) when there is one: the
     * samples survive a kill. Backed on disk a chunk at a time. */
    size_t got = 0;
    void *j = sl_journal_arena(atomic_load(&cfg_arena_bytes), MIN_ARENA, &got, t);
    if (j && sl_journal_back(j, CHUNK) == 0) {
        t->arena = j;
        t->mapped = got;
        t->end = t->arena + CHUNK / sizeof(sample);
        atomic_store_explicit(&t->snext, t->arena, memory_order_release);
        return;
    }
    if (j)
        sl_journal_give_back(j, got);
    size_t limit = sl_rt_budget();
    for (size_t bytes = atomic_load(&cfg_arena_bytes); bytes >= sizeof(sample);
         bytes = bytes > MIN_ARENA ? bytes / 2 : 0) {
        if (reserve(bytes, limit)) {
            void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p != MAP_FAILED) {
                t->arena = p;
                t->mapped = bytes;
                t->end = t->arena + bytes / sizeof(sample);
                atomic_store_explicit(&t->snext, t->arena, memory_order_release);
                break;
            }
            atomic_fetch_sub(&reserved, bytes);
        }
        if (bytes <= MIN_ARENA)
            break;
    }
}

/* The thread is exiting: keep the filled pages, unmap the rest. */
static void arena_trim(void *arg)
{
    sl_rt_thread *t = arg;
    if (!t->arena)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    sample *next = atomic_load_explicit(&t->snext, RELAXED);
    size_t used = (size_t)((char *)next - (char *)t->arena);
    size_t keep = (used + page - 1) / page * page;
    if (keep >= t->mapped)
        return;
    /* The owner's stores stop here: later ones (another key destructor
     * timing a region) see the smaller end and count as dropped. */
    t->end = t->arena + keep / sizeof(sample);
    if (sl_journal_holds(t->arena)) {
        if (sl_journal_give_back((char *)t->arena + keep, t->mapped - keep))
            t->mapped = keep;
        return;
    }
    if (munmap((char *)t->arena + keep, t->mapped - keep) == 0) {
        atomic_fetch_sub(&reserved, t->mapped - keep);
        t->mapped = keep;
    }
}

static void key_create(void)
{
    key_ok = pthread_key_create(&exit_key, arena_trim) == 0;
}

void sl_rt_arena_attach(sl_rt_thread *t)
{
    pthread_once(&key_once, key_create);
    if (key_ok)
        pthread_setspecific(exit_key, t);
}

/* Under the cap, but the arena is not mapped yet, or full. */
COLD void sl_rt_record_slow(sl_rt_thread *t, sl_rt_entry *e, int64_t start, int64_t end)
{
    if (!t->arena_tried)
        arena_map(t);
    sample *s = atomic_load_explicit(&t->snext, RELAXED);
    if (s && s >= t->end && sl_journal_holds(t->arena)) {
        /* The journal's arena grows a chunk at a time, backed first. */
        size_t have = (size_t)((char *)t->end - (char *)t->arena);
        if (have + CHUNK <= t->mapped && sl_journal_back(t->end, CHUNK) == 0)
            t->end = t->arena + (have + CHUNK) / sizeof(sample);
    }
    if (s && s < t->end)
        keep(t, s, e, start, end);
    else
        drop(e, end - start);
}
