/* Internal header: not installed. A growable array for h5/ until core's
 * vec.h is merged: make room for one more element of v. */
#ifndef SL_H5_GROW_H
#define SL_H5_GROW_H

#include <errno.h>
#include <stdlib.h>

/* Makes *v hold at least n + 1 elements of elem bytes (doubling, first
 * first_cap). 0, or -ENOMEM with *v unchanged. */
static inline int sl_h5_grow(void *v, size_t *cap, size_t n, size_t elem, size_t first_cap)
{
    void **pv = v;
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : first_cap;
    void *g = realloc(*pv, c * elem);
    if (!g)
        return -ENOMEM;
    *pv = g;
    *cap = c;
    return 0;
}

#endif
