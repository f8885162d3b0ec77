/* The per-thread sample arena: one address-space reservation per thread
 * (MAP_NORESERVE, pages touched as samples arrive), so that keeping a
 * sample on the hot path is three stores and no allocation. */
#include "rt_internal.h"

#include <sys/mman.h>

#define DEFAULT_ARENA ((size_t)256 << 20)
#define MIN_ARENA ((size_t)1 << 20)

static _Atomic size_t cfg_arena_bytes = DEFAULT_ARENA;

void sl_rt_arena_configure(size_t bytes)
{
    atomic_store(&cfg_arena_bytes, bytes ? bytes : DEFAULT_ARENA);
}

/* First sample of the thread: reserve address space only; pages are
 * touched as samples arrive. */
static COLD void arena_map(sl_rt_thread *t)
{
    t->arena_tried = 1;
    for (size_t bytes = atomic_load(&cfg_arena_bytes); bytes >= sizeof(sample);
         bytes = bytes > MIN_ARENA ? bytes / 2 : 0) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            t->arena = p;
            t->end = t->arena + bytes / sizeof(sample);
            atomic_store_explicit(&t->snext, t->arena, memory_order_release);
            break;
        }
        if (bytes <= MIN_ARENA)
            break;
    }
}

/* Under the cap, but the arena is not mapped yet, or full. */
COLD void sl_rt_record_slow(sl_rt_thread *t, sl_rt_entry *e, int64_t start, int64_t end)
{
    if (!t->arena_tried)
        arena_map(t);
    sample *s = atomic_load_explicit(&t->snext, RELAXED);
    if (s && s < t->end)
        keep(t, s, e, start, end);
    else
        drop(e, end - start);
}
