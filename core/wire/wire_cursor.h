/* Internal to the wire decoder (core/wire/wire_read.c, core/wire/wire_cursor.c): not
 * part of core's interface, which is wire.h. The cursor walks hostile input
 * one line and one token at a time; every reader below bounds its reads by
 * the input's length and records only the first defect ("name:line: what:
 * expected what"). Once a defect is recorded every call is a no-op that
 * returns it, so the decoder can chain calls with || and check once. */
#ifndef SL_WIRE_CURSOR_H
#define SL_WIRE_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include "diag.h"
#include "likwid_result.h"

typedef struct sl_wc {
    const char *buf;
    size_t len;
    size_t pos;         /* start of the next line */
    size_t lineno;      /* number of the current line (1-based) */
    const char *name;
    sl_diag *diag;
    int err;            /* first error; later calls are no-ops */
    /* the current line */
    const char *lp;
    size_t ln;
    size_t lo;          /* offset of the next token inside the line */
} sl_wc;

/* A cursor at the start of buf (NULL reads as empty), named `name`. */
void sl_wc_start(sl_wc *c, const char *buf, size_t len, const char *name, sl_diag *diag);

/* Bytes not yet consumed: the ceiling for any announced count. */
static inline size_t sl_wc_remaining(const sl_wc *c)
{
    return c->len - c->pos;
}

/* Each returns 0 or the first error (-EINVAL for a defect, -ENOMEM). */
int sl_wc_defect(sl_wc *c, const char *what, const char *expected);
int sl_wc_nomem(sl_wc *c);

/* Lines and tokens. */
int sl_wc_next_line(sl_wc *c, const char *expected);
int sl_wc_token(sl_wc *c, const char **t, size_t *n, const char *expected);
int sl_wc_line_done(sl_wc *c);
/* A new line whose first token is kw. */
int sl_wc_keyword(sl_wc *c, const char *kw);

/* Typed tokens; `expected` names the field in the message. */
int sl_wc_get_i64(sl_wc *c, int64_t *v, const char *expected);
int sl_wc_get_count(sl_wc *c, size_t per, size_t *out, const char *expected);
int sl_wc_get_flag(sl_wc *c, int *out, const char *expected);
int sl_wc_get_dbl(sl_wc *c, double *d, const char *expected);
int sl_wc_get_str(sl_wc *c, char **out, size_t *len, const char *expected);
int sl_wc_set_str(sl_wc *c, char **slot, const char *expected);
int sl_wc_get_source(sl_wc *c, sl_source *src, const char *expected);
int sl_wc_dbl_row(sl_wc *c, double *v, size_t stride, size_t T, const char *what);

/* Whole lines "kw value". */
int sl_wc_named_i64(sl_wc *c, const char *kw, int64_t *v);
int sl_wc_named_str(sl_wc *c, const char *kw, char **slot);

#endif
