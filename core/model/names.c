/* Names of region groups and the text form of tags (core/model/names.h has the
 * rule; docs/FORMAT.md documents it for readers). */
#include "names.h"
#include "mem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when s[0] starts none.
 * Strict: no overlong forms, no surrogates, nothing above U+10FFFF, and no
 * NUL (our strings are C strings; a NUL could not be stored in HDF5). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c == 0)
        return 0;
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xBF; /* bounds of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0; /* overlong */
        else if (c == 0xED)
            hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90; /* overlong */
        else if (c == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}

int sl_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        size_t k = utf8_seq(p + i, len - i);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

static int is_escaped_byte(unsigned char c)
{
    return c < 0x20 || c == 0x7F || c == '/' || c == '%';
}

/* Writes the tag into out, each valid UTF-8 sequence as it is and each
 * other byte as lead + two upper-case hex digits; with the name rule
 * (names.h) also each byte it escapes. Returns the bytes written, at most
 * (strlen(lead) + 2) * len; no NUL. */
static size_t escape(char *out, const char *tag, size_t len, const char *lead, int name_rule)
{
    const unsigned char *p = (const unsigned char *)tag;
    size_t o = 0, i = 0;
    while (i < len) {
        size_t k = utf8_seq(p + i, len - i);
        /* a leading '.' is escaped so "." and ".." never appear */
        if (k == 0 ||
            (name_rule && k == 1 && (is_escaped_byte(p[i]) || (i == 0 && p[i] == '.')))) {
            o += (size_t)sprintf(out + o, "%s%02X", lead, p[i]);
            i++;
        } else {
            memcpy(out + o, p + i, k);
            o += k;
            i += k;
        }
    }
    return o;
}

/* Room for len bytes escaped at up to per bytes each, plus extra. */
static char *escape_room(size_t len, size_t per, size_t extra)
{
    if (len > (SIZE_MAX - extra) / per)
        return NULL;
    return malloc(per * len + extra);
}

char *sl_tag_display(const char *tag, size_t len)
{
    char *out = escape_room(len, 4, 1);
    if (out)
        out[escape(out, tag, len, "\\x", 0)] = '\0';
    return out;
}

char *sl_name_encode(const char *tag, size_t len, int64_t group_id, int multi_group)
{
    char *out = escape_room(len, 3, 32);
    if (!out)
        return NULL;
    size_t o = 0;
    if (len == 0)
        out[o++] = '%'; /* "" has no name of its own */
    else
        o = escape(out, tag, len, "%", 1);
    if (multi_group)
        o += (size_t)sprintf(out + o, "%%g%" PRId64, group_id);
    out[o] = '\0';
    return out;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses "%g<int64>" running to the end of the name. */
static int parse_suffix(const char *s, int64_t *group_id)
{
    if (s[0] != '%' || s[1] != 'g')
        return -EINVAL;
    const char *d = s + 2;
    if (*d == '-')
        d++;
    if (*d < '0' || *d > '9')
        return -EINVAL;
    for (const char *q = d; *q; q++)
        if (*q < '0' || *q > '9')
            return -EINVAL;
    errno = 0;
    char *end;
    long long v = strtoll(s + 2, &end, 10);
    if (errno || *end)
        return -EINVAL;
    *group_id = (int64_t)v;
    return 0;
}

int sl_name_decode(const char *name, char **tag, size_t *len, int64_t *group_id)
{
    size_t n = strlen(name);
    char *out = malloc(n + 1);
    if (!out)
        return -ENOMEM;
    size_t o = 0, i = 0;
    int64_t gid = -1;
    if (name[0] == '%' && (name[1] == '\0' || (name[1] == '%' && name[2] == 'g'))) {
        i = 1; /* the empty tag */
    }
    while (i < n) {
        if (name[i] != '%') {
            out[o++] = name[i++];
            continue;
        }
        if (name[i + 1] == 'g') {
            if (parse_suffix(name + i, &gid) < 0)
                goto bad;
            break;
        }
        int hi = hexval(name[i + 1]), lo = hi < 0 ? -1 : hexval(name[i + 2]);
        if (hi < 0 || lo < 0)
            goto bad;
        out[o++] = (char)(hi * 16 + lo);
        i += 3;
    }
    out[o] = '\0';
    /* only names sl_name_encode can produce: reject other spellings of a tag */
    char *again = sl_name_encode(out, o, gid, gid != -1 || (i < n));
    if (!again) {
        free(out);
        return -ENOMEM;
    }
    int same = strcmp(again, name) == 0;
    free(again);
    if (!same)
        goto bad;
    *tag = out;
    *len = o;
    *group_id = gid;
    return 0;
bad:
    free(out);
    return -EINVAL;
}

/* ---- scope-profiler's names (names.h) ---- */

/* The tag as scope-profiler names it ('/' as '|'), or NULL when it cannot
 * be a link name (empty, ".", "..", not valid UTF-8) or on ENOMEM. */
static char *sp_form(const char *tag, size_t len)
{
    if (len == 0 || (len == 1 && tag[0] == '.') || (len == 2 && tag[0] == '.' && tag[1] == '.') ||
        !sl_utf8_valid(tag, len))
        return NULL;
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < len; i++)
        s[i] = tag[i] == '/' ? '|' : tag[i];
    s[len] = '\0';
    return s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* name is out[i] for some i in taken_sorted (sorted) or in later[0..nlater). */
static int taken(const char *name, char **sorted, size_t nsorted, char **later, size_t nlater)
{
    if (nsorted && bsearch(&name, sorted, nsorted, sizeof *sorted, cmp_str))
        return 1;
    for (size_t i = 0; i < nlater; i++)
        if (!strcmp(later[i], name))
            return 1;
    return 0;
}

int sl_names_sp(const char *const *tags, const size_t *lens, size_t n, char **out)
{
    char **sorted = malloc((n ? n : 1) * sizeof *sorted);
    char **later = malloc((n ? n : 1) * sizeof *later);
    size_t nsorted = 0, nlater = 0;
    int rc = sorted && later ? 0 : -ENOMEM;
    for (size_t i = 0; i < n; i++)
        out[i] = NULL;
    /* first the tags that are their own name: they keep it */
    for (size_t i = 0; !rc && i < n; i++) {
        if (memchr(tags[i], '/', lens[i]))
            continue;
        out[i] = sp_form(tags[i], lens[i]);
        if (out[i])
            sorted[nsorted++] = out[i];
    }
    if (!rc)
        qsort(sorted, nsorted, sizeof *sorted, cmp_str);
    /* then '/' as '|', else (or when that name is taken) our escaped form,
     * made distinct by a trailing '%' per clash */
    for (size_t i = 0; !rc && i < n; i++) {
        if (out[i])
            continue;
        char *s = memchr(tags[i], '/', lens[i]) ? sp_form(tags[i], lens[i]) : NULL;
        if (s && taken(s, sorted, nsorted, later, nlater)) {
            free(s);
            s = NULL;
        }
        if (!s)
            s = sl_name_encode(tags[i], lens[i], -1, 0);
        while (s && taken(s, sorted, nsorted, later, nlater)) {
            size_t k = strlen(s);
            char *t = realloc(s, k + 2);
            if (!t) {
                free(s);
                s = NULL;
                break;
            }
            s = t;
            s[k] = '%';
            s[k + 1] = '\0';
        }
        if (!s)
            rc = -ENOMEM;
        else
            out[i] = later[nlater++] = s;
    }
    free(sorted);
    free(later);
    if (rc)
        sl_strings_clear(out, n);
    return rc;
}
