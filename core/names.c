/* Names of region groups and the text form of tags (core/names.h has the
 * rule; docs/FORMAT.md documents it for readers). */
#include "names.h"

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

char *sl_tag_display(const char *tag, size_t len)
{
    const unsigned char *p = (const unsigned char *)tag;
    if (len > (SIZE_MAX - 1) / 4)
        return NULL;
    char *out = malloc(4 * len + 1);
    if (!out)
        return NULL;
    size_t o = 0, i = 0;
    while (i < len) {
        size_t k = utf8_seq(p + i, len - i);
        if (k) {
            memcpy(out + o, p + i, k);
            o += k;
            i += k;
        } else {
            o += (size_t)sprintf(out + o, "\\x%02X", p[i]);
            i++;
        }
    }
    out[o] = '\0';
    return out;
}

static int is_escaped_byte(unsigned char c)
{
    return c < 0x20 || c == 0x7F || c == '/' || c == '%';
}

/* Does the tag need escaping at all (see names.h)? */
static int needs_escape(const char *tag, size_t len)
{
    if (len == 0 || tag[0] == '.' || !sl_utf8_valid(tag, len))
        return 1;
    for (size_t i = 0; i < len; i++)
        if (is_escaped_byte((unsigned char)tag[i]))
            return 1;
    return 0;
}

char *sl_name_encode(const char *tag, size_t len, int64_t group_id, int multi_group)
{
    const unsigned char *p = (const unsigned char *)tag;
    if (len > (SIZE_MAX - 32) / 3)
        return NULL;
    char *out = malloc(3 * len + 32);
    if (!out)
        return NULL;
    size_t o = 0;
    if (!needs_escape(tag, len)) {
        memcpy(out, tag, len);
        o = len;
    } else if (len == 0) {
        out[o++] = '%';
    } else {
        size_t i = 0;
        while (i < len) {
            size_t k = utf8_seq(p + i, len - i);
            /* a leading '.' is escaped so "." and ".." never appear */
            if (k == 0 || (k == 1 && (is_escaped_byte(p[i]) || (i == 0 && p[i] == '.')))) {
                o += (size_t)sprintf(out + o, "%%%02X", p[i]);
                i++;
            } else {
                memcpy(out + o, p + i, k);
                o += k;
                i += k;
            }
        }
    }
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
