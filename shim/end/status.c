/* The likwid_status text: "a; b; c", one piece per step. */
#include "end.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The likwid_status text (end.h). */
void sl_text_add(sl_text *t, const char *fmt, ...)
{
    char piece[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    size_t a = t->s ? strlen(t->s) : 0, b = strlen(piece);
    char *g = realloc(t->s, a + b + 3);
    if (!g)
        return;
    if (a) {
        memcpy(g + a, "; ", 2);
        a += 2;
    }
    memcpy(g + a, piece, b + 1);
    t->s = g;
}
