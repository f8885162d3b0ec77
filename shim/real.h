/* Internal header: not installed. LIKWID's real C marker functions, found
 * on first use with dlsym(RTLD_NEXT), or else in a liblikwid.so* loaded
 * RTLD_LOCAL (see real.c). Every member is NULL while LIKWID is not found:
 * callers then do the shim's part only, and the next call looks again. The
 * Fortran entry points are never used: they call the C ones through the PLT
 * and would come back into our wrappers. */
#ifndef SL_SHIM_REAL_H
#define SL_SHIM_REAL_H

#include "marker_fns.h"

/* One pointer per row of SL_MARKER_FNS, named by its member column. */
#define SL_REAL_SLOT(cname, member, ret, params, args, fname, fshape) ret(*member) params;
typedef struct sl_real_api {
    SL_MARKER_FNS(SL_REAL_SLOT)
} sl_real_api;
#undef SL_REAL_SLOT

/* Thread-safe; never NULL itself. Once LIKWID is found the answer never
 * changes; until then it is the all-NULL table. */
const sl_real_api *sl_real(void);

/* The file of a second copy of the shim that the lookup skipped (it stays
 * out: one_copy.h), or NULL. */
const char *sl_real_other_copy(void);

#endif
