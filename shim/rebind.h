/* Internal header: not installed. The rebinding: an object bound past the
 * global scope (loaded RTLD_DEEPBIND) whose marker calls lead into LIKWID
 * gets its GOT slots of the marker functions rewritten to the shim's entry
 * points; one the shim cannot reach is named at exit. */
#ifndef SL_SHIM_REBIND_H
#define SL_SHIM_REBIND_H

#include <stddef.h>

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

#endif
