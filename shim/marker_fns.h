/* Internal header: not installed. LIKWID's marker functions, one row each;
 * every other spelling is generated from this list: the real-symbol table
 * (objects/objects.h, objects/real.c), the internal path's declarations
 * (face/face.h), the C entry points and the gfortran ones where their
 * shape allows (face/entry.c) and the linker version script
 * (libscope_likwid.map.in, run through the preprocessor at build time).
 *
 * X(C name, member, return type, parameters, arguments, gfortran name,
 *   gfortran shape, errno)
 *   member:  the slot in sl_real_api; the internal path is sl_shim_<member>
 *   shape:   NONE (no argument), TAG (one CHARACTER(*) tag or path), OWN
 *            (written by hand in face/entry.c)
 *   errno:   KEEP (the entry point gives the caller back its errno: the
 *            shim's own work, spawning helpers, files, must not show), HOT
 *            (Start and Stop: no system call on their path can set it,
 *            and they stay as short as they are)
 * likwid_markerWriteFile is LIKWID 5.5's (absent in 5.2: its slot stays
 * NULL there). */
#ifndef SL_SHIM_MARKER_FNS_H
#define SL_SHIM_MARKER_FNS_H

#define SL_MARKER_FNS(X)                                                                         \
    X(likwid_markerInit, init, void, (void), (), likwid_markerinit_, NONE, KEEP)                 \
    X(likwid_markerThreadInit, thread_init, void, (void), (), likwid_markerthreadinit_, NONE,    \
      KEEP)                                                                                      \
    X(likwid_markerRegisterRegion, register_region, int, (const char *tag), (tag),               \
      likwid_markerregisterregion_, TAG, KEEP)                                                   \
    X(likwid_markerStartRegion, start, int, (const char *tag), (tag), likwid_markerstartregion_, \
      TAG, HOT)                                                                                  \
    X(likwid_markerStopRegion, stop, int, (const char *tag), (tag), likwid_markerstopregion_,    \
      TAG, HOT)                                                                                  \
    X(likwid_markerResetRegion, reset, int, (const char *tag), (tag), likwid_markerresetregion_, \
      TAG, KEEP)                                                                                 \
    X(likwid_markerGetRegion, get, void,                                                         \
      (const char *tag, int *nr_events, double *events, double *time, int *count),               \
      (tag, nr_events, events, time, count), likwid_markergetregion_, OWN, KEEP)                 \
    X(likwid_markerNextGroup, next_group, void, (void), (), likwid_markernextgroup_, NONE, KEEP) \
    X(likwid_markerWriteFile, write_file, int, (const char *markerfile), (markerfile),           \
      likwid_markerwritefile_, TAG, KEEP)                                                        \
    X(likwid_markerClose, close, void, (void), (), likwid_markerclose_, NONE, KEEP)

#endif
