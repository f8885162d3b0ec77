/* docs/FORMAT.md names every field of the schema table (h5/schema.h).
 * usage: format_fields FORMAT.md   (exit 1 and one line per missing name)
 *        format_fields --print     (the table, one field a line) */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

static int word_char(int c)
{
    return isalnum(c) || c == '_';
}

/* name occurs in text with no letter, digit or _ on either side (a
 * pattern row's name, e.g. "LIKWID_", may be followed by one). */
static int names(const char *text, const char *name, int prefix)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
        if ((p == text || !word_char((unsigned char)p[-1])) &&
            (prefix || !word_char((unsigned char)p[n])))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--print")) {
        for (int i = 0; i < SL_H5F_COUNT; i++) {
            const sl_h5_field *f = &sl_h5_schema[i];
            printf("%-34s %-16s %-7s %-8s %-7s %-9s since %d\n", sl_h5_obj_path(f->obj), f->name,
                   sl_h5_kind_name(f->kind), sl_h5_type_name(f->type), f->shape,
                   sl_h5_need_name(f->need), f->since);
        }
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: format_fields FORMAT.md | --print\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[len] = '\0';
    int missing = 0;
    for (int i = 0; i < SL_H5F_COUNT; i++) {
        const sl_h5_field *f = &sl_h5_schema[i];
        if (!names(text, f->name, f->need == SL_H5_PAT)) {
            fprintf(stderr, "%s: does not name %s%s (%s): expected every field of h5/schema.h\n",
                    argv[1], sl_h5_obj_path(f->obj), f->name, sl_h5_kind_name(f->kind));
            missing++;
        }
    }
    return missing ? 1 : 0;
}
