/* Derived names within NAME_MAX and PATH_MAX (see name_fit.h). */
#include "name_fit.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_CHARS 17   /* "~" and 16 hex digits */

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

char *sl_name_fit_in(const char *dir, const char *prefix, const char *base, const char *suffix)
{
    size_t d = dir ? strlen(dir) + 1 : 0, p = strlen(prefix), b = strlen(base), s = strlen(suffix);
    char hash[HASH_CHARS + 1] = "";
    size_t keep = b;
    if (p + b + s > NAME_MAX) {
        snprintf(hash, sizeof hash, "~%016llx", (unsigned long long)fnv1a(base));
        keep = p + s + HASH_CHARS < NAME_MAX ? NAME_MAX - p - s - HASH_CHARS : 0;
        /* Not inside a UTF-8 sequence: back up over continuation bytes. */
        while (keep > 0 && ((unsigned char)base[keep] & 0xC0) == 0x80)
            keep--;
    }
    size_t n = d + p + keep + strlen(hash) + s;
    if (n >= PATH_MAX) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    snprintf(out, n + 1, "%s%s%s%.*s%s%s", dir ? dir : "", dir ? "/" : "", prefix, (int)keep, base, hash,
             suffix);
    return out;
}

char *sl_name_fit(const char *path, const char *prefix, const char *suffix)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return sl_name_fit_in(NULL, prefix, path, suffix);
    char *dir = strndup(path, (size_t)(slash - path));     /* "" for the root */
    if (!dir)
        return NULL;
    char *out = sl_name_fit_in(dir, prefix, slash + 1, suffix);
    free(dir);
    return out;
}

char *sl_name_numbered(const char *path, unsigned k)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (dot == base || (dot && strlen(dot) > 16))
        dot = NULL; /* ".h5" is a name, not an extension; nor is a long tail */
    size_t head = dot ? (size_t)(dot - path) : strlen(path);
    char suffix[32], *stem = strndup(path, head);
    snprintf(suffix, sizeof suffix, ".%u%s", k, dot ? dot : "");
    char *out = stem ? sl_name_fit(stem, "", suffix) : NULL;
    free(stem);
    return out;
}
