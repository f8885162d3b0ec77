/* Growable buffer and XML escaping for scope-likwid plot (plot_buf.h). */
#include "plot_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "vec.h"

void sl_buf_init(sl_buf *b)
{
    memset(b, 0, sizeof *b);
}

void sl_buf_free(sl_buf *b)
{
    free(b->data);
    sl_buf_init(b);
}

static int grow(sl_buf *b, size_t need)
{
    if (b->failed)
        return -1;
    if (SL_VEC_RESERVE(b->data, b->cap, b->len, need + 1) < 0) {
        b->failed = 1;
        return -1;
    }
    return 0;
}

void sl_buf_put(sl_buf *b, const char *s, size_t n)
{
    if (grow(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sl_buf_puts(sl_buf *b, const char *s)
{
    sl_buf_put(b, s, strlen(s));
}

void sl_buf_printf(sl_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        sl_buf_put(b, small, (size_t)n);
        return;
    }
    if (grow(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Length of the UTF-8 sequence starting at p (the input is valid UTF-8:
 * sl_tag_display's output). */
static size_t seq_len(unsigned char c)
{
    return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

void sl_buf_text(sl_buf *b, const char *s, size_t n, size_t max_chars)
{
    char *d = sl_tag_display(s, n);
    if (!d) {
        b->failed = 1;
        return;
    }
    size_t chars = 0;
    for (const unsigned char *p = (const unsigned char *)d; *p;) {
        if (max_chars && chars == max_chars) {
            sl_buf_puts(b, "\xE2\x80\xA6"); /* U+2026 */
            break;
        }
        size_t k = seq_len(*p);
        for (size_t j = 1; j < k; j++)
            if (!p[j])
                k = j;
        chars++;
        switch (*p) {
        case '<': sl_buf_puts(b, "&lt;"); break;
        case '>': sl_buf_puts(b, "&gt;"); break;
        case '&': sl_buf_puts(b, "&amp;"); break;
        case '"': sl_buf_puts(b, "&quot;"); break;
        case '\'': sl_buf_puts(b, "&#39;"); break;
        default:
            /* XML allows neither control bytes nor U+FFFE/U+FFFF */
            if (*p < 0x20 || *p == 0x7F)
                sl_buf_printf(b, "\\x%02X", *p);
            else if (k == 3 && p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF))
                sl_buf_printf(b, "\\xEF\\xBF\\x%02X", p[2]);
            else
                sl_buf_put(b, (const char *)p, k);
        }
        p += k;
    }
    free(d);
}

void sl_buf_tag(sl_buf *b, const char *tag, size_t len, size_t max_chars)
{
    if (len)
        sl_buf_text(b, tag, len, max_chars);
    else
        sl_buf_puts(b, "(empty tag)");
}
