/* Internal header: not installed. The one saturating int64 add and
 * subtract: sums and differences of values read from a file (any value is
 * possible) stop at the limits instead of overflowing (undefined
 * behaviour). */
#ifndef SL_SAT_H
#define SL_SAT_H

#include <stdint.h>

static inline int64_t sl_add_sat(int64_t a, int64_t b)
{
    int64_t s;
    if (__builtin_add_overflow(a, b, &s))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return s;
}

static inline int64_t sl_sub_sat(int64_t a, int64_t b)
{
    int64_t s;
    if (__builtin_sub_overflow(a, b, &s))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return s;
}

#endif
