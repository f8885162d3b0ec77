/* The real LIKWID marker functions behind our definitions. */
#include "real.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include <stdatomic.h>

static sl_real_api real_api;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;
static _Atomic int resolved;    /* set (release) once real_api is filled */

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
    atomic_store_explicit(&resolved, 1, memory_order_release);
}

/* Called on every marker call: after the first, one acquire load (a plain
 * move on x86) instead of pthread_once's call. */
const sl_real_api *sl_real(void)
{
    if (__builtin_expect(atomic_load_explicit(&resolved, memory_order_acquire), 1))
        return &real_api;
    pthread_once(&real_once, resolve_all);
    return &real_api;
}
