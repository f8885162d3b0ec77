/* Internal header: not installed. The shim's group face/: the face: every exported symbol (the marker API, the exec family, dlopen, the
 * user changes), the marker API as the shim answers it, Init, the load steps. */
#ifndef SL_FACE_H
#define SL_FACE_H

#include "end.h"
#include <stdatomic.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

/* What the application sees: the one mark of an exported symbol (the
 * version script lists which). */
#define SL_EXPORT __attribute__((visibility("default")))

/* user_change.c: the user and group of Init noted (at Init), for what is
 * made before a change of user. */
void sl_user_change_arm(void);

/* The internal path behind each entry point (api.c): sl_shim_<member>
 * for every row of SL_MARKER_FNS. */
#define SL_SHIM_DECL(cname, member, ret, params, args, fname, fshape, errno_) ret sl_shim_##member params;
SL_MARKER_FNS(SL_SHIM_DECL)
#undef SL_SHIM_DECL


/* Internal header: not installed. The dlopen wrapper: the shim's exported
 * dlopen (x86-64), which hands every call to the real one unchanged and,
 * after a RTLD_DEEPBIND load, has the new objects rebound (rebind.c). */


/* The wrapper's two halves, called from its assembly entry only.
 * sl_dl_route: 0 to jump on to the real dlopen as if called directly
 * (glibc reads its caller from the return address), 1 for sl_dl_hooked,
 * which calls it and then rebinds. */
int sl_dl_route(const char *file, int mode, const void *caller);
void *sl_dl_hooked(const char *file, int mode);

/* Internal header: not installed. The rebinding: an object bound past the
 * global scope (loaded RTLD_DEEPBIND) whose marker calls lead into LIKWID
 * gets its GOT slots of the marker functions rewritten to the shim's entry
 * points; one the shim cannot reach is named at exit. */

/* The shim's entry points by the name a relocation gives them, C and
 * gfortran (entry.c): hidden aliases, their own addresses whatever else
 * the process defines. */
typedef struct sl_own_entry {
    const char *name;
    void (*fn)(void);
} sl_own_entry;
extern const sl_own_entry sl_own_entries[];
extern const size_t sl_own_nentries;

/* Whether objects are rewritten now: not in a process the shim leaves
 * alone (SCOPE_LIKWID_DISABLE, SCOPE_LIKWID_EXCLUDE, pass-through), not
 * with SCOPE_LIKWID_REBIND=0. */
int sl_rebind_wanted(void);

/* At Init: every loaded object with a marker slot that leads into
 * liblikwid. */
void sl_rebind_loaded(void);

/* Around a dlopen with RTLD_DEEPBIND: sl_rebind_last_loaded before it (the
 * objects after that one are the load's), sl_rebind_after_load with its
 * handle. Both keep errno. */
const void *sl_rebind_last_loaded(void);
void sl_rebind_after_load(void *handle, const void *last_before);


/* rebind.c: at exit, one line for the first object whose marker calls
 * still lead into liblikwid, and why it was not rewritten. */
void sl_rebind_exit_note(void);
/* user_change.c: the real setuid family, looked up once (at load and at
 * Init). */
void sl_user_change_resolve(void);

#pragma GCC visibility pop

#endif
