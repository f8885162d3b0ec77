/* Internal header: not installed. Names the project derives from a name the
 * user chose (".rescue", temporary, ".cycle2" and journal names) kept within
 * NAME_MAX and PATH_MAX, so that no output name the application can use
 * loses results. libc only (the shim uses it). */
#ifndef SL_NAME_FIT_H
#define SL_NAME_FIT_H

/* "<dir of path>/<prefix><base of path><suffix>". When that last component
 * would exceed NAME_MAX (255 bytes), the base is cut (at a UTF-8 character
 * boundary) and "~" plus 16 hex digits of a hash of the whole base are put
 * in its place, so distinct long names stay distinct. prefix and suffix
 * must fit in 200 bytes together. Newly allocated; NULL on ENOMEM (or
 * when the result would exceed PATH_MAX: ENAMETOOLONG in errno). */
char *sl_name_fit(const char *path, const char *prefix, const char *suffix);

/* The same for a separate directory and base name (NULL dir: none; ""
 * is the root). */
char *sl_name_fit_in(const char *dir, const char *prefix, const char *base, const char *suffix);

/* path with ".<k>" before the extension of its last component ("out.h5"
 * -> "out.1.h5"; k > 0), within NAME_MAX: the free name beside a taken
 * one, as the writer and the shim choose it. Newly allocated; NULL on
 * ENOMEM. */
char *sl_name_numbered(const char *path, unsigned k);

#endif
