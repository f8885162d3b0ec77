/* The sl_diff a comparison fills (diff_compare.c, diff_provenance.c): the
 * names of its verdicts and gates, its warnings, its release. */
#include "diff.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

static const char *const verdict_names[] = {
    [SL_V_SAME] = "same",
    [SL_V_SLOWER] = "slower",
    [SL_V_FASTER] = "faster",
    [SL_V_HIGHER] = "higher",
    [SL_V_LOWER] = "lower",
    [SL_V_ONLY_BASE] = "only in base",
    [SL_V_ONLY_NEW] = "only in new",
    [SL_V_NO_DATA] = "no data",
};

const char *sl_verdict_name(sl_verdict v)
{
    size_t n = sizeof verdict_names / sizeof verdict_names[0];
    return (size_t)v < n && verdict_names[v] ? verdict_names[v] : "?";
}

const char *sl_gate_name(sl_gate g)
{
    return g == SL_GATE_FAIL ? "fail" : g == SL_GATE_PASS ? "pass" : "";
}

void sl_diff_free(sl_diff *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->rows[i].rank);
        free(d->rows[i].region);
        free(d->rows[i].group_name);
        free(d->rows[i].quantity);
    }
    free(d->rows);
    sl_strings_free(d->warnings, d->nwarnings);
    memset(d, 0, sizeof *d);
}

int sl_diff_warn(sl_diff *d, const char *fmt, ...)
{
    char *line;
    va_list ap;
    va_start(ap, fmt);
    int len = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (len < 0)
        return -ENOMEM;
    char **grown = realloc(d->warnings, (d->nwarnings + 1) * sizeof *grown);
    if (!grown) {
        free(line);
        return -ENOMEM;
    }
    d->warnings = grown;
    d->warnings[d->nwarnings++] = line;
    return 0;
}
