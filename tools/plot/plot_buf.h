/* Internal header: not installed. A growable text buffer for the plot
 * command, and the escaping that makes any bytes safe inside HTML and SVG
 * (both parsed as XML: the report is XHTML-compatible). */
#ifndef SL_PLOT_BUF_H
#define SL_PLOT_BUF_H

#include <stddef.h>

typedef struct sl_buf {
    char *data;         /* NUL-terminated when len > 0 */
    size_t len;
    size_t cap;
    int failed;         /* an allocation failed: the text is incomplete */
} sl_buf;

void sl_buf_init(sl_buf *b);
void sl_buf_free(sl_buf *b);
void sl_buf_put(sl_buf *b, const char *s, size_t n);
void sl_buf_puts(sl_buf *b, const char *s);
void sl_buf_printf(sl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends bytes (any byte but NUL, valid UTF-8 or not) as XML text or
 * attribute value: stray bytes and control bytes as the visible text
 * "\xHH" (sl_tag_display's form), < > & " ' as entities. At most max_chars
 * characters are written (0: no limit); a cut text ends in an ellipsis. */
void sl_buf_text(sl_buf *b, const char *s, size_t n, size_t max_chars);

/* A region tag as sl_buf_text writes it; the empty tag as "(empty tag)". */
void sl_buf_tag(sl_buf *b, const char *tag, size_t len, size_t max_chars);

#endif
