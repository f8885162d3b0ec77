/* LIKWID's C marker API, defined here so that the preloaded shim sees every
 * call (Fortran ones too: LIKWID's Fortran entry points call these through
 * the PLT). One definition per row of SL_MARKER_FNS (marker_fns.h), each a
 * tail call of the internal path; only these, the Fortran names and the
 * exec family are exported (the version script is generated from the same
 * list). */
#include "shim.h"

#define SL_EXPORT __attribute__((visibility("default")))

/* "return f();" is not C in a void function: the keyword by return type. */
#define SL_RETURN_void
#define SL_RETURN_int return

#define SL_C_ENTRY(cname, member, ret, params, args, fname, fshape) \
    SL_EXPORT ret cname params;                                     \
    ret cname params                                                \
    {                                                               \
        SL_RETURN_##ret sl_shim_##member args;                      \
    }
SL_MARKER_FNS(SL_C_ENTRY)
