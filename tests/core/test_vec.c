/* core/base/vec.h, the growable array: growth keeps what was pushed, and every
 * size that cannot be represented is -ENOMEM with the array untouched (the
 * shim may never exit or abort on it). */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "vec.h"

/* Under ASan a request this large stops the process unless the allocator
 * may return NULL, as malloc does: the failure path runs in every build. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

Test(vec, push_keeps_order_across_growth)
{
    int64_t *v = NULL;
    size_t n = 0, cap = 0;
    for (int64_t i = 0; i < 1000; i++)
        cr_assert_eq(SL_VEC_PUSH(v, n, cap, i * 3), 0);
    cr_assert_eq(n, 1000);
    cr_assert_geq(cap, 1000);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(v[i], (int64_t)i * 3, "item %zu", i);
    free(v);
}

Test(vec, reserve_within_capacity_does_not_move)
{
    double *v = NULL;
    size_t cap = 0;
    cr_assert_eq(SL_VEC_RESERVE(v, cap, 0, 5), 0);
    cr_assert_eq(cap, 16);
    double *before = v;
    cr_assert_eq(SL_VEC_RESERVE(v, cap, 10, 6), 0);
    cr_assert_eq(v, before);
    cr_assert_eq(cap, 16);
    cr_assert_eq(SL_VEC_RESERVE(v, cap, 16, 1), 0);
    cr_assert_eq(cap, 32);
    free(v);
}

Test(vec, overflow_is_enomem_and_leaves_the_array)
{
    int64_t *v = NULL;
    size_t n = 0, cap = 0;
    cr_assert_eq(SL_VEC_PUSH(v, n, cap, 7), 0);
    int64_t *before = v;
    size_t capbefore = cap;
    /* n + more wraps */
    cr_assert_eq(SL_VEC_RESERVE(v, cap, SIZE_MAX, 1), -ENOMEM);
    /* doubling would pass SIZE_MAX */
    cr_assert_eq(SL_VEC_RESERVE(v, cap, SIZE_MAX / 2 + 2, 0), -ENOMEM);
    /* items fit in size_t, bytes do not */
    cr_assert_eq(SL_VEC_RESERVE(v, cap, SIZE_MAX / 4, 0), -ENOMEM);
    cr_assert_eq(v, before);
    cr_assert_eq(cap, capbefore);
    cr_assert_eq(n, 1);
    cr_assert_eq(v[0], 7);
    free(v);
}

Test(vec, allocation_failure_is_enomem)
{
    /* a request malloc cannot meet (2^62 bytes) fails in realloc itself */
    char *v = NULL;
    size_t cap = 0;
    cr_assert_eq(SL_VEC_RESERVE(v, cap, 0, (size_t)1 << 62), -ENOMEM);
    cr_assert_null(v);
    cr_assert_eq(cap, 0);
}
