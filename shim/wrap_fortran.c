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

SL_EXPORT void likwid_markerinit_(void);
SL_EXPORT void likwid_markerthreadinit_(void);
SL_EXPORT void likwid_markerclose_(void);
SL_EXPORT void likwid_markernextgroup_(void);
SL_EXPORT void likwid_markerregisterregion_(const char *tag, size_t len);
SL_EXPORT void likwid_markerstartregion_(const char *tag, size_t len);
SL_EXPORT void likwid_markerstopregion_(const char *tag, size_t len);
SL_EXPORT void likwid_markerresetregion_(const char *tag, size_t len);
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

void likwid_markerinit_(void)
{
    sl_shim_init();
}

void likwid_markerthreadinit_(void)
{
    sl_shim_thread_init();
}

void likwid_markerclose_(void)
{
    sl_shim_close();
}

void likwid_markernextgroup_(void)
{
    sl_shim_next_group();
}

void likwid_markerregisterregion_(const char *tag, size_t len)
{
    char buf[STACK_TAG], *heap;
    sl_shim_register(ctag(tag, len, buf, &heap));
    free(heap);
}

void likwid_markerstartregion_(const char *tag, size_t len)
{
    char buf[STACK_TAG], *heap;
    sl_shim_start(ctag(tag, len, buf, &heap));
    free(heap);
}

void likwid_markerstopregion_(const char *tag, size_t len)
{
    char buf[STACK_TAG], *heap;
    sl_shim_stop(ctag(tag, len, buf, &heap));
    free(heap);
}

void likwid_markerresetregion_(const char *tag, size_t len)
{
    char buf[STACK_TAG], *heap;
    sl_shim_reset(ctag(tag, len, buf, &heap));
    free(heap);
}

void likwid_markergetregion_(const char *tag, int *nr_events, double *events, double *time,
                             int *count, size_t len)
{
    char buf[STACK_TAG], *heap;
    sl_shim_get(ctag(tag, len, buf, &heap), nr_events, events, time, count);
    free(heap);
}
