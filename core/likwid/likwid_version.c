/* Reading a liblikwid's version: its own getters exist only from 5.3 on, so
 * 5.2 is known by its soname (the loader's record of the library, not its
 * file name: dlopen("liblikwid.so") names no version). */
#include "likwid_version.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*version_fn)(void);

static version_fn getter(void *handle, const char *name)
{
    version_fn f;
    void *p = dlsym(handle, name);
    memcpy(&f, &p, sizeof f);
    return f;
}

int sl_likwid_version(void *handle, char *out, size_t n)
{
    version_fn major = getter(handle, "likwid_getMajorVersion");
    version_fn minor = getter(handle, "likwid_getMinorVersion");
    version_fn bugfix = getter(handle, "likwid_getBugfixVersion");
    if (major && minor && bugfix) {
        snprintf(out, n, "%d.%d.%d", major(), minor(), bugfix());
        return 0;
    }
    snprintf(out, n, "unknown");
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_ld)
        return -ENOENT;
    const char *strtab = NULL;
    const ElfW(Dyn) *soname = NULL;
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_STRTAB)
            strtab = (const char *)d->d_un.d_ptr;
        else if (d->d_tag == DT_SONAME)
            soname = d;
    }
    if (!strtab || !soname)
        return -ENOENT;
    const char *name = strtab + soname->d_un.d_val;
    if (strncmp(name, "liblikwid.so.", 13) != 0 || !name[13])
        return -ENOENT;
    snprintf(out, n, "%s", name + 13);
    return 0;
}

int sl_likwid_minor(const char *version)
{
    if (strncmp(version, "5.", 2) != 0 || version[2] < '0' || version[2] > '9')
        return -1;
    return (int)strtol(version + 2, NULL, 10);
}
