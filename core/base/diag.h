/* Internal header: not installed. Diagnostics collected while reading input:
 * one line each, "FILE:LINE: what was wrong: expected what". */
#ifndef SL_DIAG_H
#define SL_DIAG_H

#include <stdarg.h>
#include <stddef.h>

typedef struct sl_diag {
    size_t count;        /* all diagnostics reported, kept or not */
    size_t kept;         /* lines stored (capped at SL_DIAG_MAX) */
    char **lines;
    size_t cap;          /* room in lines */
} sl_diag;

#define SL_DIAG_MAX 1000

void sl_diag_init(sl_diag *d);
void sl_diag_free(sl_diag *d);
/* Adds "file:line: message" (line 0: "file: message"), the message cut at
 * 511 bytes. Never fails loudly: on allocation failure only the count grows. */
void sl_diag_add(sl_diag *d, const char *file, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for a reader's own reporting function that takes "..." too. */
void sl_diag_vadd(sl_diag *d, const char *file, size_t line, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif
