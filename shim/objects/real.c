
#include "objects.h"
#include "likwid_version.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The real LIKWID marker functions behind our definitions: the next
 * definition after ours in the global scope (dlsym(RTLD_NEXT)), or, when
 * LIKWID was loaded RTLD_LOCAL (a CPython extension like pylikwid, a plugin
 * a host dlopen()ed), the liblikwid.so* among the loaded objects. */
#define SL_REAL_NAME(cname, member, ret, params, args, fname, fshape, errno_) #cname,
static const char *const names[] = {SL_MARKER_FNS(SL_REAL_NAME)};
#undef SL_REAL_NAME
#define NNAMES (sizeof names / sizeof names[0])

/* Filled before being published, never changed after. */
static sl_real_api next_api, local_api;
static const sl_real_api none_api;
/* NULL until LIKWID is found; then &next_api or &local_api (release). */
static _Atomic(const sl_real_api *) published;
static pthread_once_t next_once = PTHREAD_ONCE_INIT;
/* Guards local_api's filling and the object counts of the last probe that
 * found nothing. Never held across a loader call: a thread inside dlopen()
 * holds the loader's lock and may call a marker function from a
 * constructor, which would then wait for us while we wait for the loader. */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long probed_adds = ~0ULL, probed_subs = ~0ULL;

/* The slots of an sl_real_api in the order of names[]. */
static void **slot(sl_real_api *a, size_t i)
{
#define SL_REAL_SLOT_ADDR(cname, member, ret, params, args, fname, fshape, errno_) (void **)&a->member,
    void **s[NNAMES] = {SL_MARKER_FNS(SL_REAL_SLOT_ADDR)};
#undef SL_REAL_SLOT_ADDR
    return s[i];
}

/* dlsym returns void*; copying through memcpy keeps -Wpedantic quiet. */
static void set_slot(sl_real_api *a, size_t i, void *p)
{
    memcpy(slot(a, i), &p, sizeof p);
}

/* Another copy of the shim, when RTLD_NEXT found one (copies.c). */
static char other_copy[4096];

/* A reference to the object that defines sym, never dropped: LIKWID loaded
 * RTLD_GLOBAL by a plugin that is dlclose()d and loaded again (MATLAB's
 * `clear mex`, a Python module reload) stays mapped while the shim may call
 * the functions it found, which would otherwise point into unmapped (or
 * reused) memory at the next call. Loads nothing new. */
static void hold(void *sym)
{
    Dl_info at;
    if (sym && dladdr(sym, &at) && at.dli_fname && at.dli_fname[0])
        (void)sl_real_dlopen()(at.dli_fname, RTLD_NOLOAD | RTLD_LAZY);
}

static void resolve_next(void)
{
    for (size_t i = 0; i < NNAMES; i++)
        set_slot(&next_api, i, dlsym(RTLD_NEXT, names[i]));
    void *init;
    memcpy(&init, slot(&next_api, 0), sizeof init);
    if (sl_other_copy_at(init, other_copy, sizeof other_copy)) {
        /* Behind us is a second copy of the shim: it stays out, LIKWID is
         * looked for among the loaded objects. */
        next_api = none_api;
        if (!other_copy[0])
            strcpy(other_copy, "?");
    }
    if (next_api.init) {
        hold(init);     /* none for the program itself, which is never unmapped */
        atomic_store_explicit(&published, &next_api, memory_order_release);
    }
}

const char *sl_real_other_copy(void)
{
    pthread_once(&next_once, resolve_next);
    return other_copy[0] ? other_copy : NULL;
}

/* Any object whose file name starts with "liblikwid.so" (liblikwid.so,
 * liblikwid.so.5.2, ...; not liblikwidpin.so, not liblikwid-hwloc.so). */
int sl_real_is_likwid(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "liblikwid.so", 12) == 0 && (base[12] == '\0' || base[12] == '.');
}

typedef struct probe {
    unsigned long long adds, subs;
    int first;
    char *path;         /* on the heap: no large stack buffer in the shim */
} probe;

static int visit(struct dl_phdr_info *info, size_t size, void *vp)
{
    probe *p = vp;
    (void)size;
    if (p->first) {
        p->adds = info->dlpi_adds;
        p->subs = info->dlpi_subs;
        p->first = 0;
    }
    if (info->dlpi_name && sl_real_is_likwid(info->dlpi_name)) {
        p->path = strdup(info->dlpi_name);
        return 1;
    }
    return 0;
}

/* Whether sym is defined in the object at path, and is not ours. */
static int defined_in(void *sym, const char *path)
{
    static const char self_marker = 0;
    Dl_info at, self;
    if (!sym || !dladdr(sym, &at) || !at.dli_fname || !dladdr(&self_marker, &self))
        return 0;
    return at.dli_fbase != self.dli_fbase && strcmp(at.dli_fname, path) == 0;
}

/* Looks for LIKWID among the loaded objects; loads nothing new. Threads
 * may probe at once: the first to find LIKWID publishes. */
static void probe_loaded(void)
{
    probe p = {.first = 1};
    sl_loaded_walk(visit, &p);
    pthread_mutex_lock(&probe_lock);
    int same = !p.first && p.adds == probed_adds && p.subs == probed_subs;
    pthread_mutex_unlock(&probe_lock);
    if (same) {
        free(p.path);
        return;     /* nothing loaded or unloaded since the last look */
    }
    void *h = p.path ? sl_real_dlopen()(p.path, RTLD_NOLOAD | RTLD_LAZY) : NULL;
    sl_real_api a = none_api;
    for (size_t i = 0; h && i < NNAMES; i++) {
        void *sym = dlsym(h, names[i]);
        set_slot(&a, i, defined_in(sym, p.path) ? sym : NULL);
    }
    int keep = 0;
    pthread_mutex_lock(&probe_lock);
    if (!a.init) {
        probed_adds = p.adds;
        probed_subs = p.subs;
    } else if (!atomic_load_explicit(&published, memory_order_acquire)) {
        local_api = a;
        atomic_store_explicit(&published, &local_api, memory_order_release);
        keep = 1;   /* the handle keeps LIKWID loaded while we may call it */
    }
    pthread_mutex_unlock(&probe_lock);
    if (h && !keep)
        dlclose(h);
    free(p.path);
}

static const sl_real_api *resolve_slow(void)
{
    pthread_once(&next_once, resolve_next);
    const sl_real_api *r = atomic_load_explicit(&published, memory_order_acquire);
    if (r)
        return r;
    probe_loaded();
    r = atomic_load_explicit(&published, memory_order_acquire);
    return r ? r : &none_api;
}

/* Called on every marker call but Start/Stop: once LIKWID is found, one
 * acquire load (a plain move on x86). Until then each call looks again,
 * which costs a walk of the loaded objects only when they changed. */
const sl_real_api *sl_real(void)
{
    const sl_real_api *r = atomic_load_explicit(&published, memory_order_acquire);
    if (__builtin_expect(r != NULL, 1))
        return r;
    return resolve_slow();
}

/* The file of the library that defines r's Init (the liblikwid the
 * application loaded), on the heap; NULL when there is none. The collector
 * opens the same file, so it reads with the application's LIKWID. */
char *sl_real_library(const sl_real_api *r)
{
    Dl_info at;
    void *init;
    memcpy(&init, &r->init, sizeof init);
    if (!init || !dladdr(init, &at) || !at.dli_fname || !at.dli_fname[0])
        return NULL;
    return strdup(at.dli_fname);
}

/* The version of the library that defines r's Init ("5.5.1", "5.2"), into
 * out; "unknown" when there is none or it does not say. Loads nothing:
 * RTLD_NOLOAD of a library already loaded. */
void sl_real_likwid_version(const sl_real_api *r, char *out, size_t n)
{
    snprintf(out, n, "unknown");
    char *path = sl_real_library(r);
    void *h = path ? sl_real_dlopen()(path, RTLD_NOLOAD | RTLD_LAZY) : NULL;
    if (h) {
        sl_likwid_version(h, out, n);
        dlclose(h);
    }
    free(path);
}

/* The start of LIKWID's Likwid_Configuration (likwid.h; the same from 5.2
 * to 5.5), what get_configuration() points to once LIKWID started. */
typedef struct likwid_config_head {
    char *config_file, *topology_file, *daemon_path;
} likwid_config_head;

/* dlsym of name in h as a function pointer */
#define SL_LIKWID_FN(fp, h, name)                                                  \
    do {                                                                          \
        void *s_ = dlsym(h, name);                                                \
        memcpy(&(fp), &s_, sizeof s_);                                            \
    } while (0)

/* What the LIKWID at library set up in this process that its copy in the
 * collector would set up again (docs/SHIM.md, full_api): the clock its
 * timer measured (timer_getCycleClock, timer_getCpuClock) and the access
 * daemon its configuration found. timer_init first: LIKWID's Init started
 * the timer wherever this process's LIKWID counted (then it returns at
 * once), and its getters would print an error if it had not. Loads
 * nothing: RTLD_NOLOAD. */
void sl_real_likwid_setup(const char *library, sl_likwid_setup *out)
{
    *out = (sl_likwid_setup){{0}, {0}, NULL};
    void *h = library ? sl_real_dlopen()(library, RTLD_NOLOAD | RTLD_LAZY) : NULL;
    if (!h)
        return;
    void (*start)(void);
    uint64_t (*cycle)(void), (*cpu)(void);
    likwid_config_head *(*config)(void);
    SL_LIKWID_FN(start, h, "timer_init");
    SL_LIKWID_FN(cycle, h, "timer_getCycleClock");
    SL_LIKWID_FN(cpu, h, "timer_getCpuClock");
    SL_LIKWID_FN(config, h, "get_configuration");
    if (start && cycle && cpu) {
        start();
        uint64_t a = cycle(), b = cpu();
        if (a && b) {
            snprintf(out->cycle_hz, sizeof out->cycle_hz, "%" PRIu64, a);
            snprintf(out->cpu_hz, sizeof out->cpu_hz, "%" PRIu64, b);
        }
    }
    likwid_config_head *c = config ? config() : NULL;
    if (out->cycle_hz[0] && c && c->daemon_path && c->daemon_path[0])
        out->accessd = strdup(c->daemon_path);
    dlclose(h);
}
