/* The carrier of a reason (why.h). */
#include "why.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sl_why_in(sl_why *w, char *buf, size_t size)
{
    *w = (sl_why){.s = buf, .cap = size, .fixed = 1};
    buf[0] = '\0';
}

void sl_why_heap(sl_why *w)
{
    *w = (sl_why){0};
}

void sl_why_free(sl_why *w)
{
    if (!w->fixed)
        free(w->s);
    *w = (sl_why){0};
}

void sl_why_add(sl_why *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sl_why_vaddn(w, SIZE_MAX, fmt, ap);
    va_end(ap);
}

void sl_why_addn(sl_why *w, size_t max, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sl_why_vaddn(w, max, fmt, ap);
    va_end(ap);
}

void sl_why_vaddn(sl_why *w, size_t max, const char *fmt, va_list ap)
{
    va_list size_ap;
    va_copy(size_ap, ap);
    int full = vsnprintf(NULL, 0, fmt, size_ap);
    va_end(size_ap);
    if (full < 0)
        return;
    size_t n = (size_t)full < max ? (size_t)full : max;
    if (w->fixed) {
        size_t room = w->cap - 1 - w->len;
        if (n > room)
            n = room;
    } else if (n >= w->cap - w->len) {
        size_t need = w->len + n + 1, cap = w->cap ? w->cap : 64;
        if (need < n)
            return;
        while (cap < need)
            cap = cap > SIZE_MAX / 2 ? need : 2 * cap;
        char *grown = realloc(w->s, cap);
        if (!grown)
            return;
        w->s = grown;
        w->cap = cap;
    }
    /* writes n bytes of the text and its NUL: a cut falls where the bound says */
    vsnprintf(w->s + w->len, n + 1, fmt, ap);
    w->len += n;
}

const char *sl_why_text(const sl_why *w)
{
    return w->s ? w->s : "";
}

const char *sl_clip(char buf[SL_CLIP_BUF], const char *value)
{
    size_t len = strlen(value), n = len;
    if (n > SL_CLIP_MAX) {
        n = SL_CLIP_MAX;
        while (n > 0 && ((unsigned char)value[n] & 0xC0) == 0x80)
            n--; /* value[n] continues a sequence: cut before it begins */
    }
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)value[i] < 0x20 || value[i] == 0x7f ? '?' : value[i];
    if (n < len)
        snprintf(buf + n, SL_CLIP_BUF - n, "...(%zu bytes)", len);
    else
        buf[n] = '\0';
    return buf;
}
