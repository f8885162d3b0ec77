/* Writing one GOT slot (got_write.h). */

#include "objects.h"
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

int sl_got_write(const sl_elf_obj *o, uintptr_t slot, uintptr_t value, int may_protect)
{
    if (slot % sizeof(void *) != 0)
        return -EINVAL;
    uintptr_t *at = (uintptr_t *)slot;
    if (slot >= o->relro_lo && slot < o->relro_hi) {
        if (!may_protect)
            return -EPERM;
        int saved = errno;
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        void *p = (void *)(slot & ~(uintptr_t)(page - 1));
        if (mprotect(p, page, PROT_READ | PROT_WRITE) != 0) {
            int e = errno;
            errno = saved;
            return -e;
        }
        __atomic_store_n(at, value, __ATOMIC_RELEASE);
        /* As the loader left it. Should this fail, the page stays writable:
         * the store is done, only the hardening of one page is lost. */
        (void)mprotect(p, page, PROT_READ);
        errno = saved;
        return 0;
    }
    if (!sl_elf_holds(o, slot, 1))
        return -EFAULT;
    __atomic_store_n(at, value, __ATOMIC_RELEASE);
    return 0;
}

static long first_mode = -1, first_filters = -1;
static pthread_once_t first_once = PTHREAD_ONCE_INIT;

static void note_first(void)
{
    sl_seccomp_read(&first_mode, &first_filters);
}

int sl_got_may_protect(void)
{
    pthread_once(&first_once, note_first);
    long mode, filters;
    sl_seccomp_read(&mode, &filters);
    if (mode > first_mode)
        return 0;
    return !(filters >= 0 && first_filters >= 0 && filters > first_filters);
}
