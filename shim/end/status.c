/* end/status.c: from close.c. */
#include "end.h"
#include "diag.h"
#include "fileio.h"
#include "likwid_version.h"
#include "markerfile.h"
#include "name_fit.h"
#include "parse_int.h"
#include "trusted_dir.h"
#include "wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* The likwid_status text (see shim.h). */
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
