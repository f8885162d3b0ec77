/* The walks over the loaded objects, written once: the loader's walk
 * (dl_iterate_phdr; face/rebind.c keeps its own two-walk protocol: it must
 * not call the loader inside the walk), whether an object holds an
 * address, whether valgrind's preload is among them. */
#include "objects.h"

#include <string.h>

int sl_loaded_walk(int (*visit)(struct dl_phdr_info *info, size_t size, void *ctx), void *ctx)
{
    return dl_iterate_phdr(visit, ctx);
}

int sl_loaded_holds(const struct dl_phdr_info *info, uintptr_t addr)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && addr >= lo && addr - lo < ph->p_memsz)
            return 1;
    }
    return 0;
}

static int find_valgrind(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *n = info->dlpi_name;
    for (; n && *n; n++)
        if (*n == 'v' && strncmp(n, "vgpreload_core", 14) == 0)
            return 1;
    return 0;
}

int sl_loaded_valgrind(void)
{
    return dl_iterate_phdr(find_valgrind, NULL) == 1;
}
