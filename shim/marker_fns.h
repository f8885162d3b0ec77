/* Internal header: not installed. LIKWID's marker functions, one row each;
 * every other spelling is generated from this list: the real-symbol table
 * (shim.h, real.c), the internal path's declarations (shim.h), the C entry
 * points (entry.c), the gfortran ones where their shape allows
 * (entry.c) and the linker version script (libscope_likwid.map.in, run
 * through the preprocessor at build time).
 *
 * X(C name, member, return type, parameters, arguments, gfortran name,
 *   gfortran shape)
 *   member:  the slot in sl_real_api; the internal path is sl_shim_<member>
 *   shape:   NONE (no argument), TAG (one CHARACTER(*) tag), OWN (written
 *            by hand in entry.c) */
#ifndef SL_SHIM_MARKER_FNS_H
#define SL_SHIM_MARKER_FNS_H

#define SL_MARKER_FNS(X)                                                                         \
    X(likwid_markerInit, init, void, (void), (), likwid_markerinit_, NONE)                       \
    X(likwid_markerThreadInit, thread_init, void, (void), (), likwid_markerthreadinit_, NONE)    \
    X(likwid_markerRegisterRegion, register_region, int, (const char *tag), (tag),               \
      likwid_markerregisterregion_, TAG)                                                         \
    X(likwid_markerStartRegion, start, int, (const char *tag), (tag), likwid_markerstartregion_, \
      TAG)                                                                                       \
    X(likwid_markerStopRegion, stop, int, (const char *tag), (tag), likwid_markerstopregion_,    \
      TAG)                                                                                       \
    X(likwid_markerResetRegion, reset, int, (const char *tag), (tag), likwid_markerresetregion_, \
      TAG)                                                                                       \
    X(likwid_markerGetRegion, get, void,                                                         \
      (const char *tag, int *nr_events, double *events, double *time, int *count),               \
      (tag, nr_events, events, time, count), likwid_markergetregion_, OWN)                       \
    X(likwid_markerNextGroup, next_group, void, (void), (), likwid_markernextgroup_, NONE)       \
    X(likwid_markerClose, close, void, (void), (), likwid_markerclose_, NONE)

#endif
