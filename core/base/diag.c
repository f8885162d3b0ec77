/* Diagnostics: a capped list of one-line messages. */
#include "diag.h"

#include "mem.h"
#include "vec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sl_diag_init(sl_diag *d)
{
    memset(d, 0, sizeof *d);
}

void sl_diag_free(sl_diag *d)
{
    sl_strings_free(d->lines, d->kept);
    sl_diag_init(d);
}

void sl_diag_add(sl_diag *d, const char *file, size_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sl_diag_vadd(d, file, line, fmt, ap);
    va_end(ap);
}

void sl_diag_vadd(sl_diag *d, const char *file, size_t line, const char *fmt, va_list ap)
{
    d->count++;
    if (d->kept >= SL_DIAG_MAX)
        return;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* one line per diagnostic, whatever the input held */
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    char head[64];
    if (line)
        snprintf(head, sizeof head, ":%zu: ", line);
    else
        snprintf(head, sizeof head, ": ");
    const char *f = file ? file : "(input)";
    size_t n = strlen(f) + strlen(head) + strlen(msg) + 1;
    char *s = malloc(n);
    if (!s || SL_VEC_RESERVE(d->lines, d->cap, d->kept, 1) < 0) {
        free(s);
        return;
    }
    snprintf(s, n, "%s%s%s", f, head, msg);
    d->lines[d->kept++] = s;
}
