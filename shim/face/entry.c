/* The exported marker API: the C entry points, the gfortran ones (blank-
 * padded tags trimmed) and their own addresses for the rebinding. */

#include "face.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* LIKWID's C marker API, defined here so that the preloaded shim sees every
 * call (Fortran ones too: LIKWID's Fortran entry points call these through
 * the PLT). One definition per row of SL_MARKER_FNS (marker_fns.h), each a
 * tail call of the internal path; only these, the Fortran names and the
 * exec family are exported (the version script is generated from the same
 * list). */

/* The errno column of SL_MARKER_FNS: KEEP entry points give the caller
 * back the errno it had (the shim's work at Init and Close, helpers and
 * files, and LIKWID's own, must not show: the application's next perror
 * would lie); HOT ones (Start, Stop) make no call that sets it and stay a
 * plain tail call. */
#define SL_ERRNO_SAVE_KEEP int saved_errno_ = errno;
#define SL_ERRNO_SAVE_HOT
#define SL_ERRNO_RESTORE_KEEP errno = saved_errno_;
#define SL_ERRNO_RESTORE_HOT

/* A void function has no result to hold: the keyword by return type. */
#define SL_RESULT_void(call) call;
#define SL_RESULT_int(call) int result_ = call;
#define SL_RETURN_void
#define SL_RETURN_int return result_;

#define SL_C_ENTRY(cname, member, ret, params, args, fname, fshape, errno_) \
    SL_EXPORT ret cname params;                                             \
    ret cname params                                                        \
    {                                                                       \
        SL_ERRNO_SAVE_##errno_                                              \
        SL_RESULT_##ret(sl_shim_##member args)                              \
        SL_ERRNO_RESTORE_##errno_                                           \
        SL_RETURN_##ret                                                     \
    }
SL_MARKER_FNS(SL_C_ENTRY)

/* LIKWID's gfortran entry points (module likwid, likwid.f90): subroutines
 * named lower-case with a trailing underscore; each CHARACTER(*) argument
 * brings a hidden length (size_t since gfortran 8) after the others. Tags
 * arrive blank-padded: trailing blanks are trimmed. Everything goes through
 * the same internal path as the C entry points, which forwards to LIKWID's
 * REAL C functions; LIKWID's own Fortran functions are never called (they
 * would call the C names through the PLT, i.e. us again: double counting). */
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
#define SL_F_ENTRY_NONE(fname, member, errno_) \
    SL_EXPORT void fname(void);                \
    void fname(void)                           \
    {                                          \
        SL_ERRNO_SAVE_##errno_                 \
        sl_shim_##member();                    \
        SL_ERRNO_RESTORE_##errno_              \
    }
#define SL_F_ENTRY_TAG(fname, member, errno_)            \
    SL_EXPORT void fname(const char *tag, size_t len);   \
    void fname(const char *tag, size_t len)              \
    {                                                    \
        SL_ERRNO_SAVE_##errno_                           \
        char buf[STACK_TAG], *heap;                      \
        sl_shim_##member(ctag(tag, len, buf, &heap));    \
        free(heap);                                      \
        SL_ERRNO_RESTORE_##errno_                        \
    }
#define SL_F_ENTRY_OWN(fname, member, errno_)
#define SL_F_ENTRY(cname, member, ret, params, args, fname, fshape, errno_) \
    SL_F_ENTRY_##fshape(fname, member, errno_)
SL_MARKER_FNS(SL_F_ENTRY)

void likwid_markergetregion_(const char *tag, int *nr_events, double *events, double *time,
                             int *count, size_t len)
{
    SL_ERRNO_SAVE_KEEP
    char buf[STACK_TAG], *heap;
    sl_shim_get(ctag(tag, len, buf, &heap), nr_events, events, time, count);
    free(heap);
    SL_ERRNO_RESTORE_KEEP
}

/* Every entry point's own address, by the name a relocation gives it: an
 * object bound past the global scope has its slots rewritten to these
 * (rebind.c). Hidden aliases: no other definition in the process can
 * stand in for them. */
#define SL_OWN_ALIAS(cname, member, ret, params, args, fname, fshape, errno_)                 \
    extern __typeof__(cname) sl_own_##cname __attribute__((alias(#cname), visibility("hidden"))); \
    extern __typeof__(fname) sl_own_##fname __attribute__((alias(#fname), visibility("hidden")));
SL_MARKER_FNS(SL_OWN_ALIAS)
#define SL_OWN_ROW(cname, member, ret, params, args, fname, fshape, errno_) \
    {#cname, (void (*)(void))sl_own_##cname}, {#fname, (void (*)(void))sl_own_##fname},
const sl_own_entry sl_own_entries[] = {SL_MARKER_FNS(SL_OWN_ROW)};
const size_t sl_own_nentries = sizeof sl_own_entries / sizeof sl_own_entries[0];
