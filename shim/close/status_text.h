/* Internal header: not installed. The likwid_status text Close builds up:
 * "a; b; c", one piece per source tried and why it failed or was used. */
#ifndef SL_SHIM_STATUS_TEXT_H
#define SL_SHIM_STATUS_TEXT_H

typedef struct sl_text {
    char *s;                    /* NULL while empty */
} sl_text;

/* Appends one piece (cut at 1 KiB); on ENOMEM the piece is lost, not the text. */
void sl_text_add(sl_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
