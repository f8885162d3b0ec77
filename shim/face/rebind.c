/* The rebinding (rebind.h). An object loaded with RTLD_DEEPBIND (or
 * otherwise bound past the global scope) that is linked with liblikwid
 * finds LIKWID's marker functions before the preloaded shim's: its calls
 * would be timed by nobody. Its slots of the marker functions (JUMP_SLOT,
 * GLOB_DAT) are rewritten to the shim's entry points, after such a
 * dlopen (dlopen.c) and at each Init for objects already loaded, as LLNL
 * GOTCHA rewrites GOTs. An object is bound past when one of its marker
 * slots holds an address inside liblikwid, or when it came with a
 * RTLD_DEEPBIND load whose scope finds a marker function in liblikwid;
 * then its slots into liblikwid and its lazy ones not yet bound are
 * rewritten. Nothing else is written: not the shim's nor liblikwid's own
 * slots, not an object bound to the shim (or to a third definition).
 *
 * The walks run inside dl_iterate_phdr, which holds the loader's lock: no
 * object is unmapped meanwhile, and no two walks write at once. Nothing in
 * them calls back into the loader (dladdr, dlsym would take its other lock,
 * in the reverse order of a dlopen): the extents of liblikwid and of the
 * shim come from a first walk, and the second one starts over when objects
 * were loaded or unloaded in between. */

#include "face.h"
#include "why.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PREFIX "likwid_marker"
#define MAX_LIKWID 8            /* liblikwid objects told apart (versions side by side) */
#define MAX_FAILED 8            /* objects whose rewrite failed, remembered for the note */
#define SANDBOXED (-1)          /* not tried: a seccomp filter came since the first look */

/* Two entry points per row of SL_MARKER_FNS: the C and the gfortran name. */
#define SL_COUNT_ROW(cname, member, ret, params, args, fname, fshape, errno_) +2
enum { NOWN = 0 SL_MARKER_FNS(SL_COUNT_ROW) };
#undef SL_COUNT_ROW

typedef struct span {
    uintptr_t lo, hi;
} span;

/* The first walk: where liblikwid and the shim are. */
typedef struct layout {
    span likwid[MAX_LIKWID];
    int nlikwid;
    span self;
    const void *last;           /* the program headers of the last object */
    unsigned long long adds, subs;
    int seen;
} layout;

/* Where a new object's scope finds an entry point (a RTLD_DEEPBIND load). */
enum { FOUND_NONE, FOUND_LIKWID, FOUND_OTHER };

/* The second walk. */
typedef struct scan {
    const layout *lay;
    int note;                   /* the exit note: nothing is written */
    const void *last_before;    /* the objects after this one are new; NULL: none */
    int past_last, checked, stale;
    int quick;                  /* only the cached objects are read */
    int any_marker;             /* the object has a marker relocation */
    signed char found[NOWN];    /* FOUND_* per entry point, for new objects */
    int any_likwid;             /* some found[] is FOUND_LIKWID */
    int is_new;                 /* the object being looked at */
    int may_protect;            /* sl_got_may_protect, asked once; -1 not yet */
    int err;                    /* the object's last failed write (errno, SANDBOXED) */
    size_t page;
    const char *sym;            /* the note: the relocation found */
} scan;

/* The objects with marker relocations, found by the last full walk while
 * no object was loaded or unloaded since (dlpi_adds, dlpi_subs): a walk
 * then reads only their relocations (a process may load hundreds of
 * objects and call Init in every cycle). Under the loader's lock. */
#define MAX_CACHED 64
static struct {
    int valid;
    unsigned long long adds, subs;
    int n;
    const void *phdr[MAX_CACHED];
} cache;

/* Rewrites that failed: read by the note (both under the loader's lock). */
static struct failure {
    const void *phdr;
    int err;                    /* errno, or SANDBOXED */
} failed[MAX_FAILED];
static int nfailed;

static const char anchor;       /* an address inside the shim */

static int in_span(span s, uintptr_t a)
{
    return a >= s.lo && a < s.hi;
}

static int into_likwid(const layout *l, uintptr_t a)
{
    for (int i = 0; i < l->nlikwid; i++)
        if (in_span(l->likwid[i], a))
            return 1;
    return 0;
}

static int own_index(const char *name)
{
    for (size_t i = 0; i < sl_own_nentries && i < NOWN; i++)
        if (strcmp(sl_own_entries[i].name, name) == 0)
            return (int)i;
    return -1;
}

static uintptr_t own_addr(int i)
{
    uintptr_t a;
    memcpy(&a, &sl_own_entries[i].fn, sizeof a);
    return a;
}

static uintptr_t word_at(uintptr_t word)
{
    uintptr_t v;
    memcpy(&v, (const void *)word, sizeof v);
    return v;
}

static int is_vdso(const char *name)
{
    return strncmp(name, "linux-vdso", 10) == 0 || strncmp(name, "linux-gate", 10) == 0;
}

static int layout_visit(struct dl_phdr_info *info, size_t size, void *vp)
{
    layout *l = vp;
    (void)size;
    if (!l->seen) {
        l->adds = info->dlpi_adds;
        l->subs = info->dlpi_subs;
        l->seen = 1;
    }
    l->last = info->dlpi_phdr;
    sl_elf_obj o;
    (void)sl_elf_obj_read(info, 0, &o);     /* the extent, with or without relocations */
    span s = {o.lo, o.hi};
    if (in_span(s, (uintptr_t)&anchor))
        l->self = s;
    else if (sl_real_is_likwid(o.name) && l->nlikwid < MAX_LIKWID)
        l->likwid[l->nlikwid++] = s;
    return 0;
}

/* err 0: the object's rewrite succeeded (a record of an earlier object
 * at the same place goes). */
static void record_failure(const void *phdr, int err)
{
    for (int i = 0; i < nfailed; i++)
        if (failed[i].phdr == phdr) {
            if (err)
                failed[i].err = err;
            else
                failed[i] = failed[--nfailed];
            return;
        }
    if (err && nfailed < MAX_FAILED)
        failed[nfailed++] = (struct failure){phdr, err};
}

/* A marker slot that leads into liblikwid: the object is bound past. */
static int evidence(void *ctx, const sl_elf_obj *o, uintptr_t word, const char *sym, int kind,
                    int defined)
{
    scan *s = ctx;
    (void)o;
    (void)kind;
    if (defined || own_index(sym) < 0)
        return 0;
    s->any_marker = 1;
    if (!into_likwid(s->lay, word_at(word)))
        return 0;
    s->sym = sym;
    return 1;
}

/* In an object bound past: a slot into liblikwid, or one not bound yet
 * (it holds an address inside the object: its PLT) whose symbol the
 * object's scope would find in liblikwid or nowhere (then the global scope,
 * whose definition is the shim's). */
static int rewrite(void *ctx, const sl_elf_obj *o, uintptr_t word, const char *sym, int kind,
                   int defined)
{
    scan *s = ctx;
    int i = own_index(sym);
    if (defined || kind != SL_RELOC_SLOT || i < 0)
        return 0;
    uintptr_t v = word_at(word), to = own_addr(i);
    int lazy = v >= o->lo && v < o->hi && !(s->is_new && s->found[i] == FOUND_OTHER);
    if (v == to || !(into_likwid(s->lay, v) || lazy))
        return 0;
    if (s->may_protect < 0 && word >= o->relro_lo && word < o->relro_hi)
        s->may_protect = sl_got_may_protect();
    int rc = sl_got_write(o, word, to, s->may_protect > 0);
    if (rc != 0)
        s->err = rc == -EPERM && s->may_protect == 0 ? SANDBOXED : -rc;
    return 0;
}

static const char *why_not(const void *phdr, char *buf, size_t n)
{
    if (!sl_env_bool("SCOPE_LIKWID_REBIND", 1)) {
        char clip[SL_CLIP_BUF];
        snprintf(buf, n, "rewriting its slots is off (SCOPE_LIKWID_REBIND=%s)",
                 sl_clip(clip, sl_env(SL_ENV_REBIND)));
        return buf;
    }
    for (int i = 0; i < nfailed; i++) {
        if (failed[i].phdr != phdr)
            continue;
        if (failed[i].err == SANDBOXED)
            return "its slots were not made writable: a seccomp filter was installed since the "
                   "shim first looked";
        snprintf(buf, n, "rewriting its slots failed: %s", strerror(failed[i].err));
        return buf;
    }
    return "the shim did not find it bound to LIKWID at its dlopen nor at a likwid_markerInit";
}

static int note_object(scan *s, const sl_elf_obj *o)
{
    char buf[128];
    sl_log_warn("%s calls LIKWID's %s directly, not through the shim (bound past the global "
                "scope, as RTLD_DEEPBIND does; %s): those calls are not timed; load it without "
                "RTLD_DEEPBIND",
                o->name[0] ? o->name : "the program", s->sym, why_not(o->phdr, buf, sizeof buf));
    return 1;
}

static int cached(const void *phdr)
{
    for (int i = 0; i < cache.n; i++)
        if (cache.phdr[i] == phdr)
            return 1;
    return 0;
}

/* The walk's first object: 0 when objects were loaded or unloaded since
 * the first walk (start over); whether the cache holds. */
static int first_object(scan *s, const struct dl_phdr_info *info)
{
    s->checked = 1;
    if (info->dlpi_adds != s->lay->adds || info->dlpi_subs != s->lay->subs) {
        s->stale = 1;
        return 0;
    }
    s->quick = cache.valid && cache.adds == info->dlpi_adds && cache.subs == info->dlpi_subs;
    if (!s->quick) {
        cache.valid = 1;
        cache.adds = info->dlpi_adds;
        cache.subs = info->dlpi_subs;
        cache.n = 0;
    }
    return 1;
}

static int object_visit(struct dl_phdr_info *info, size_t size, void *vp)
{
    scan *s = vp;
    (void)size;
    if (!s->checked && !first_object(s, info))
        return 1;
    s->is_new = s->past_last;
    if (s->last_before && info->dlpi_phdr == s->last_before)
        s->past_last = 1;
    sl_elf_obj o;
    if ((s->quick && !cached(info->dlpi_phdr)) || sl_elf_obj_read(info, s->page, &o) != 0 ||
        is_vdso(o.name) || sl_real_is_likwid(o.name) || in_span(s->lay->self, o.lo))
        return 0;
    s->any_marker = 0;
    int past = sl_elf_each_reloc(&o, PREFIX, evidence, s);
    if (!s->quick && s->any_marker && cache.valid) {
        if (cache.n < MAX_CACHED)
            cache.phdr[cache.n++] = o.phdr;
        else
            cache.valid = 0;
    }
    if (s->note && past) {
        cache.valid &= s->quick;    /* the walk ends here: the rest was not read */
        return note_object(s, &o);
    }
    if (!s->note && (past || (s->is_new && s->any_likwid))) {
        s->err = 0;
        sl_elf_each_reloc(&o, PREFIX, rewrite, s);
        record_failure(o.phdr, s->err);
    }
    return 0;
}

/* Where the scope of a RTLD_DEEPBIND load finds each entry point. A
 * lookup that finds nothing sets dlerror's text, which the application
 * would read as its own: cleared again (the successful dlopen before left
 * none). */
static void find_in_scope(scan *s, void *handle)
{
    int missing = 0;
    for (size_t i = 0; i < sl_own_nentries && i < NOWN; i++) {
        void *p = dlsym(handle, sl_own_entries[i].name);
        uintptr_t a = (uintptr_t)p;
        missing |= !p;
        s->found[i] = !p || in_span(s->lay->self, a) ? FOUND_NONE
                      : into_likwid(s->lay, a)        ? FOUND_LIKWID
                                                      : FOUND_OTHER;
        s->any_likwid |= s->found[i] == FOUND_LIKWID;
    }
    if (missing)
        (void)dlerror();
}

/* Both walks; note: the exit note instead of the rewrite. */
static void walk(void *handle, const void *last_before, int note)
{
    int saved = errno;
    for (int tries = 0; tries < 3; tries++) {
        layout lay = {0};
        dl_iterate_phdr(layout_visit, &lay);
        if (lay.nlikwid == 0)
            break;      /* nothing leads into LIKWID */
        scan s = {.lay = &lay, .note = note, .last_before = last_before, .may_protect = -1,
                  .page = (size_t)sysconf(_SC_PAGESIZE)};
        if (handle)
            find_in_scope(&s, handle);
        dl_iterate_phdr(object_visit, &s);
        if (!s.stale)
            break;
    }
    errno = saved;
}

static int left_alone(void)
{
    int m = atomic_load(&sl_mode);
    if (m == SL_MODE_PASS || sl_config_disabled())
        return 1;
    const char *patterns = sl_env(SL_ENV_EXCLUDE);
    if (m != SL_MODE_IDLE || !patterns)
        return 0;       /* Init has judged (excluded: pass-through) */
    char *exe = realpath("/proc/self/exe", NULL);
    int excluded = sl_excluded(patterns, exe);
    free(exe);
    return excluded;
}

int sl_rebind_wanted(void)
{
    if (!SL_ELF_RELOCS || left_alone())
        return 0;
    return sl_env_bool("SCOPE_LIKWID_REBIND", 1);
}

void sl_rebind_loaded(void)
{
    if (sl_rebind_wanted())
        walk(NULL, NULL, 0);
}

static int last_visit(struct dl_phdr_info *info, size_t size, void *vp)
{
    (void)size;
    *(const void **)vp = info->dlpi_phdr;
    return 0;
}

const void *sl_rebind_last_loaded(void)
{
    int saved = errno;
    const void *last = NULL;
    dl_iterate_phdr(last_visit, &last);
    errno = saved;
    return last;
}

void sl_rebind_after_load(void *handle, const void *last_before)
{
    walk(handle, last_before, 0);
}

/* At exit, one line for the first object whose marker calls still lead
 * into liblikwid (its calls went there: a lazy slot is bound at its first
 * call), and why it was not rewritten. Not where the user asked for no
 * timing (pass-through). */
void sl_rebind_exit_note(void)
{
    if (atomic_load(&sl_mode) == SL_MODE_PASS || sl_config_disabled())
        return;
    walk(NULL, NULL, 1);
}
