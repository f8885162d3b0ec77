/* A host that is not linked with LIKWID and dlopen()s a plugin that is,
 * RTLD_LOCAL (as CPython loads extension modules).
 *   plugin_host PLUGIN NTHREADS [late]
 * late: first calls whatever likwid_markerInit the global scope has (the
 * shim's, when preloaded; nothing otherwise), before LIKWID is loaded:
 * the shim must find LIKWID when the plugin brings it in afterwards. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: plugin_host PLUGIN NTHREADS [late]\n");
        return 2;
    }
    if (argc > 3 && strcmp(argv[3], "late") == 0) {
        void *sym = dlsym(RTLD_DEFAULT, "likwid_markerInit");
        void (*init)(void);
        memcpy(&init, &sym, sizeof sym);
        if (init)
            init();
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "plugin_host: %s\n", dlerror());
        return 2;
    }
    if (dlsym(RTLD_DEFAULT, "perfmon_init")) {
        fprintf(stderr, "plugin_host: LIKWID is in the global scope: expected RTLD_LOCAL\n");
        return 2;
    }
    void *sym = dlsym(h, "plugin_run");
    int (*run)(int);
    memcpy(&run, &sym, sizeof sym);
    if (!run) {
        fprintf(stderr, "plugin_host: %s\n", dlerror());
        return 2;
    }
    int rc = run(atoi(argv[2]));
    fflush(stdout);
    return rc;
}
