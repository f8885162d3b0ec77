/* Internal header: not installed. CSV and JSON text pieces that show,
 * export and diff write alike, so their quoting cannot drift apart. */
#ifndef SL_CSV_JSON_H
#define SL_CSV_JSON_H

#include <stdio.h>

/* s as one RFC 4180 field: quoted (quotes doubled) only when it holds
 * , " CR or LF. */
void sl_csv_field(FILE *f, const char *s);

/* s as a JSON string. " and \ get a backslash; each control byte (and
 * DEL) that is in short_escapes (of '\n', '\r', '\t') is written as \n, \r
 * or \t, any other as \u00XX. The commands differ here and their output
 * must stay as it is. */
void sl_json_string(FILE *f, const char *s, const char *short_escapes);

/* v exactly (sl_fmt_exact); nan and inf as null. */
void sl_json_double(FILE *f, double v);

#endif
