/* The likwid_status text: "a; b; c", one piece per step, on core/why.h. */
#include "end.h"

#include <stdarg.h>
#include <stdio.h>

void sl_status_add(sl_why *status, const char *fmt, ...)
{
    char piece[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    sl_why_add(status, "%s%s", status->len ? "; " : "", piece);
}
