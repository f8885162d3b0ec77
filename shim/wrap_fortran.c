/* LIKWID's gfortran entry points (module likwid, likwid.f90): subroutines
 * named lower-case with a trailing underscore; each CHARACTER(*) argument
 * brings a hidden length (size_t since gfortran 8) after the others. Tags
 * arrive blank-padded: trailing blanks are trimmed. Everything goes through
 * the same internal path as the C entry points, which forwards to LIKWID's
 * REAL C functions; LIKWID's own Fortran functions are never called (they
 * would call the C names through the PLT, i.e. us again: double counting). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

#define SL_EXPORT __attribute__((visibility("default")))
#define STACK_TAG 256

SL_EXPORT void likwid_markergetregion_(const char *tag, int *nr_events, double *events,
                                       double *time, int *count, size_t len);

/* A NUL-terminated, blank-trimmed copy: in buf when it fits (no malloc on
 * the hot path for tags up to 256 bytes), else on the heap (*heap set). */
static const char *ctag(const char *tag, size_t len, char *buf, char **heap)
{
    *heap = NULL;
    if (!tag)
        return NULL;
    while (len > 0 && tag[len - 1] == ' ')
        len--;
    char *dst = buf;
    if (len >= STACK_TAG) {
        dst = *heap = malloc(len + 1);
        if (!dst)
            return NULL;
    }
    memcpy(dst, tag, len);
    dst[len] = '\0';
    return dst;
}

/* The rows of SL_MARKER_FNS (marker_fns.h) by gfortran shape: NONE calls
 * the internal path as it is, TAG with the tag made a C string; OWN is
 * written below. */
#define SL_F_ENTRY_NONE(fname, member) \
    SL_EXPORT void fname(void);        \
    void fname(void)                   \
    {                                  \
        sl_shim_##member();            \
    }
#define SL_F_ENTRY_TAG(fname, member)                \
    SL_EXPORT void fname(const char *tag, size_t len); \
    void fname(const char *tag, size_t len)          \
    {                                                \
        char buf[STACK_TAG], *heap;                  \
        sl_shim_##member(ctag(tag, len, buf, &heap)); \
        free(heap);                                  \
    }
#define SL_F_ENTRY_OWN(fname, member)
#define SL_F_ENTRY(cname, member, ret, params, args, fname, fshape) SL_F_ENTRY_##fshape(fname, member)
SL_MARKER_FNS(SL_F_ENTRY)

void likwid_markergetregion_(const char *tag, int *nr_events, double *events, double *time,
                             int *count, size_t len)
{
    char buf[STACK_TAG], *heap;
    sl_shim_get(ctag(tag, len, buf, &heap), nr_events, events, time, count);
    free(heap);
}
