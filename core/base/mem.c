/* Allocation helpers of core/'s tables (mem.h). */
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *sl_zalloc(size_t n, size_t size)
{
    if (n != 0 && size > SIZE_MAX / n)
        return NULL;
    return calloc(n ? n : 1, size);
}

char *sl_bytes_dup(const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *copy = malloc(len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

void sl_strings_free(char **v, size_t n)
{
    if (!v)
        return;
    sl_strings_clear(v, n);
    free(v);
}

void sl_strings_clear(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i]);
        v[i] = NULL;
    }
}
