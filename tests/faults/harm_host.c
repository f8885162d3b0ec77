/* A host that loads a plugin linked with liblikwid and is not linked with
 * it itself (MATLAB and its mex files, Python and its extensions), for the
 * fault cases of tests/faults/harm.sh:
 *
 *   harm_host plugin PATH    dlopen()s PATH (RTLD_GLOBAL), runs its
 *                            plugin_run(), dlclose()s it (LIKWID goes with
 *                            it), maps 64 MiB where it may have been, loads
 *                            and runs it again
 *   harm_host deepbind PATH  PATH loaded with RTLD_DEEPBIND (RTLD_NOW), run
 *                            once, kept
 *   harm_host deepbind-lazy PATH  the same with RTLD_LAZY
 *   harm_host deepbind-reload PATH  RTLD_DEEPBIND, loaded, run, unloaded,
 *                            loaded and run again as in plugin */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static int plugin(const char *path, int flags, int loads)
{
    for (int l = 0; l < loads; l++) {
        void *h = dlopen(path, (flags & RTLD_LAZY ? 0 : RTLD_NOW) | flags);
        if (!h) {
            printf("dlopen failed\n");
            return 1;
        }
        int (*run)(void);
        void *sym = dlsym(h, "plugin_run");
        memcpy(&run, &sym, sizeof run);
        printf("load %d: %d\n", l, run ? run() : -1);
        if (loads == 1)
            break;          /* kept, as most hosts keep their plugins */
        dlclose(h);
        /* Take the addresses LIKWID had: a next load maps it elsewhere. */
        for (int i = 0; i < 64; i++)
            if (mmap(NULL, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
                break;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *arg = argc > 2 ? argv[2] : "";
    if (strcmp(mode, "plugin") == 0)
        return plugin(arg, RTLD_GLOBAL, 2);
    if (strcmp(mode, "deepbind") == 0)
        return plugin(arg, RTLD_LOCAL | RTLD_DEEPBIND, 1);
    if (strcmp(mode, "deepbind-lazy") == 0)
        return plugin(arg, RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND, 1);
    if (strcmp(mode, "deepbind-reload") == 0)
        return plugin(arg, RTLD_LOCAL | RTLD_DEEPBIND, 2);
    fprintf(stderr, "usage: harm_host plugin|deepbind|deepbind-lazy|deepbind-reload PATH\n");
    return 2;
}
