/* Internal header: not installed. The one growable array of core/: room is
 * reserved by doubling from 16 items, every size is computed with an
 * overflow check, and failure is -ENOMEM with the array left as it was --
 * never exit or abort, since the shim compiles core/ into applications.
 *
 *     int64_t *v = NULL; size_t n = 0, cap = 0;
 *     if (SL_VEC_PUSH(v, n, cap, 42) < 0) ... (v, n, cap unchanged)
 */
#ifndef SL_VEC_H
#define SL_VEC_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Room for n + more items of elem bytes in the array that arrayp points to
 * (a T ** for any T), whose capacity is *cap items. 0 or -ENOMEM. The
 * pointer is read and written through memcpy so that any T * can be passed
 * without a cast. */
static inline int sl_vec_reserve_(void *arrayp, size_t *cap, size_t n, size_t more, size_t elem)
{
    if (n > SIZE_MAX - more)
        return -ENOMEM;
    size_t need = n + more;
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return -ENOMEM;
        c *= 2;
    }
    if (c > SIZE_MAX / elem)
        return -ENOMEM;
    void *old;
    memcpy(&old, arrayp, sizeof old);
    void *grown = realloc(old, c * elem);
    if (!grown)
        return -ENOMEM;
    memcpy(arrayp, &grown, sizeof grown);
    *cap = c;
    return 0;
}

/* Room for n + more items in arr (a T * lvalue) of capacity cap. */
#define SL_VEC_RESERVE(arr, cap, n, more) \
    sl_vec_reserve_(&(arr), &(cap), (n), (more), sizeof *(arr))

/* Appends item to arr, whose n items are in use; n grows by one. 0 or
 * -ENOMEM (nothing changed). */
#define SL_VEC_PUSH(arr, n, cap, item) \
    (SL_VEC_RESERVE(arr, cap, n, 1) < 0 ? -ENOMEM : ((arr)[(n)++] = (item), 0))

#endif
