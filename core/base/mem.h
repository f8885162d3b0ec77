/* Internal header: not installed. The allocations core/'s tables share:
 * zero-filled arrays that exist even for zero items (so that a NULL is only
 * ever a failure), exact copies of byte strings, and the release of an array
 * of strings. NULL on ENOMEM; never exit or abort (the shim compiles core/
 * into applications). */
#ifndef SL_MEM_H
#define SL_MEM_H

#include <stddef.h>

/* n zeroed items of size bytes (room for one when n is 0); NULL when
 * n * size overflows or on ENOMEM. */
void *sl_zalloc(size_t n, size_t size);

/* The len bytes at s and a NUL after them, newly allocated: a tag keeps
 * every byte it has, whatever they are. */
char *sl_bytes_dup(const char *s, size_t len);

/* Frees v[0..n) and v; v may be NULL. */
void sl_strings_free(char **v, size_t n);

/* Frees v[0..n) and sets each to NULL, leaving the array itself (a
 * caller's output array emptied after a failure part-way through). */
void sl_strings_clear(char **v, size_t n);

#endif
