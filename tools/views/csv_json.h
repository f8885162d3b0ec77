/* Internal header: not installed. CSV and JSON text pieces that show,
 * export and diff write alike, so their quoting cannot drift apart. */
#ifndef SL_CSV_JSON_H
#define SL_CSV_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* s as one RFC 4180 field: quoted (quotes doubled) only when it holds
 * , " CR or LF. */
void sl_csv_field(FILE *f, const char *s);

/* s as a JSON string, the one escaping of every command: " and \ get a
 * backslash; \n, \r and \t are written so; any other control byte (and
 * DEL) as \u00XX. */
void sl_json_string(FILE *f, const char *s);
/* A string that may hold any bytes: stray bytes as \xHH (sl_tag_display),
 * then as sl_json_string. */
void sl_json_bytes(FILE *f, const char *s);

/* v exactly (sl_fmt_exact); nan and inf as null. */
void sl_json_double(FILE *f, double v);
/* [v0,v1,...] */
void sl_json_i64_array(FILE *f, const int64_t *v, size_t n);
void sl_json_double_array(FILE *f, const double *v, size_t n);

#endif
