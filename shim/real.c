/* The real LIKWID marker functions behind our definitions. */
#include "real.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

static sl_real_api real_api;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* dlsym returns void*; converting through memcpy keeps -Wpedantic quiet. */
static void resolve(void *slot, const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    memcpy(slot, &p, sizeof p);
}

static void resolve_all(void)
{
    resolve(&real_api.init, "likwid_markerInit");
    resolve(&real_api.thread_init, "likwid_markerThreadInit");
    resolve(&real_api.register_region, "likwid_markerRegisterRegion");
    resolve(&real_api.start, "likwid_markerStartRegion");
    resolve(&real_api.stop, "likwid_markerStopRegion");
    resolve(&real_api.reset, "likwid_markerResetRegion");
    resolve(&real_api.get, "likwid_markerGetRegion");
    resolve(&real_api.next_group, "likwid_markerNextGroup");
    resolve(&real_api.close, "likwid_markerClose");
}

const sl_real_api *sl_real(void)
{
    pthread_once(&real_once, resolve_all);
    return &real_api;
}
