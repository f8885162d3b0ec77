/* The shim's own file, and its other copies: one shim per process. */
#include "objects.h"

#include <stdlib.h>
#include <string.h>

/* One shim per process (objects.h). Every copy carries the same ELF
 * note: a copy is recognised by what it is, whatever its file is called,
 * and nothing beyond the marker API is exported for it. */
#define NOTE_NAME "scope-likwid"
#define NOTE_TYPE 0x534c    /* "SL" */

typedef struct sl_note {
    Elf64_Word namesz, descsz, type;
    char name[16];          /* NOTE_NAME and its NUL, padded to 4 bytes */
    Elf64_Word desc;
} sl_note;

/* A section named .note.* is SHT_NOTE: the linker puts it in a PT_NOTE
 * segment, which dl_iterate_phdr shows for every loaded object. */
__attribute__((used, aligned(4), section(".note.scope-likwid")))
static const sl_note own_note = {sizeof NOTE_NAME, sizeof(Elf64_Word), NOTE_TYPE, NOTE_NAME, 1};

/* Whether the object carries the note somewhere else than at own_note. */
static int carries_note(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const void *)p;
            size_t name_len = (n->n_namesz + 3u) & ~3u, desc_len = (n->n_descsz + 3u) & ~3u;
            const char *name = p + sizeof *n;
            if (n->n_type == NOTE_TYPE && n->n_namesz == sizeof NOTE_NAME &&
                name + name_len <= end && memcmp(name, NOTE_NAME, sizeof NOTE_NAME) == 0)
                return (const void *)n != (const void *)&own_note;
            p = name + name_len + desc_len;
        }
    }
    return 0;
}

typedef struct lookup {
    uintptr_t addr;         /* the object holding this, or 0: the objects before us */
    int found;
    char *path;
    size_t len;
} lookup;

static int visit(struct dl_phdr_info *info, size_t size, void *vp)
{
    lookup *l = vp;
    (void)size;
    if (l->addr) {
        if (!sl_loaded_holds(info, l->addr))
            return 0;
        l->found = carries_note(info);
    } else {
        if (sl_loaded_holds(info, (uintptr_t)&own_note))
            return 1;       /* the objects after us do not count */
        l->found = carries_note(info);
        if (!l->found)
            return 0;
    }
    if (l->found && l->path && info->dlpi_name) {
        strncpy(l->path, info->dlpi_name, l->len - 1);
        l->path[l->len - 1] = '\0';
    }
    return 1;
}

int sl_other_copy_at(const void *addr, char *path, size_t len)
{
    lookup l = {.addr = (uintptr_t)addr, .path = path, .len = len};
    if (!addr)
        return 0;
    sl_loaded_walk(visit, &l);
    return l.found;
}

/* Where the helpers are and how they are started (objects.h). */
#ifndef SL_HELPER_REL_INSTALLED
#define SL_HELPER_REL_INSTALLED "../libexec"
#endif

/* The shim's own file, resolved once when it is loaded: LD_PRELOAD may name
 * it by a relative path, which a later chdir() would point elsewhere. */
static char *self_at_load;

void sl_self_resolve(void)
{
    Dl_info info;
    /* Any function of the shim names its file. */
    if (!self_at_load && dladdr((void *)(uintptr_t)&sl_self_resolve, &info) && info.dli_fname &&
        info.dli_fname[0])
        self_at_load = realpath(info.dli_fname, NULL);
}

char *sl_self_path(void)
{
    return self_at_load ? strdup(self_at_load) : NULL;
}

/* Whether another copy of the shim was loaded before this one (the later
 * copy stays out: pass-through from the start). */
int sl_other_copy_before(void)
{
    lookup l = {0};
    sl_loaded_walk(visit, &l);
    return l.found;
}
