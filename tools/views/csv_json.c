/* CSV quoting and JSON escaping shared by show, export and diff. */
#include "csv_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "table.h"

void sl_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* Runs of bytes that need no escape are written whole: an export has
 * hundreds of thousands of strings. */
void sl_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)s;
    for (;;) {
        const unsigned char *run = p;
        while (*p && *p != '"' && *p != '\\' && *p >= 0x20 && *p != 0x7f)
            p++;
        fwrite(run, 1, (size_t)(p - run), f);
        if (!*p)
            break;
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n' || *p == '\r' || *p == '\t')
            fprintf(f, "\\%c", *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't');
        else
            fprintf(f, "\\u%04x", *p);
        p++;
    }
    fputc('"', f);
}

void sl_json_double(FILE *f, double v)
{
    char b[SL_NUM_BUF];
    fputs(isfinite(v) ? sl_fmt_exact(v, b) : "null", f);
}

void sl_json_bytes(FILE *f, const char *s)
{
    char *d = sl_tag_display(s, strlen(s));
    sl_json_string(f, d ? d : "");
    free(d);
}

void sl_json_i64_array(FILE *f, const int64_t *v, size_t n)
{
    char b[SL_NUM_BUF];
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        fputs(sl_fmt_int(v[i], b), f);
    }
    fputc(']', f);
}

void sl_json_double_array(FILE *f, const double *v, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        sl_json_double(f, v[i]);
    }
    fputc(']', f);
}
