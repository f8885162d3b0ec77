/* Internal header: not installed. The carrier of a reason -- why something
 * failed, what a file lacks, which sources were tried: a text built from
 * formatted pieces, each cut at a bound the caller names. It lives in the
 * caller's buffer (sl_why_in: cut at the buffer's end, nothing allocated,
 * for code that must not allocate) or on the heap (sl_why_heap: grows as
 * needed). Never fails loudly: a piece that cannot be stored is left out,
 * and the text is always whole pieces or a cut last one, NUL-terminated.
 *
 *     char buf[256];
 *     sl_why w;
 *     sl_why_in(&w, buf, sizeof buf);
 *     sl_why_add(&w, "cannot run %s: %s", path, strerror(errno));
 *
 * sl_diag (diag.h) is the other kind: a list of many problems found in an
 * input, one line each, with their count. */
#ifndef SL_WHY_H
#define SL_WHY_H

#include <stdarg.h>
#include <stddef.h>

typedef struct sl_why {
    char *s;            /* the text; NULL only while a heap text is empty */
    size_t len;
    size_t cap;         /* bytes at s */
    int fixed;          /* s is the caller's buffer: never grown, never freed */
} sl_why;

/* A text in buf (size bytes, at least 1): "" now, cut at size - 1 bytes. */
void sl_why_in(sl_why *w, char *buf, size_t size);
/* A text on the heap: "" now; release with sl_why_free. */
void sl_why_heap(sl_why *w);
void sl_why_free(sl_why *w);

/* Appends the formatted text. */
void sl_why_add(sl_why *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends at most max bytes of the formatted text. */
void sl_why_addn(sl_why *w, size_t max, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void sl_why_vaddn(sl_why *w, size_t max, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* The text so far ("" when nothing was added). */
const char *sl_why_text(const sl_why *w);

/* A value read from a file, fit to echo in a one-line message (a host name
 * may be megabytes long): its first SL_CLIP_MAX bytes at most (cut before a
 * UTF-8 sequence, never inside one), control bytes as '?', and when cut
 * "...(N bytes)" after them. Written into buf; returns buf. */
#define SL_CLIP_MAX 64
#define SL_CLIP_BUF (SL_CLIP_MAX + 32)
const char *sl_clip(char buf[SL_CLIP_BUF], const char *value);

#endif
