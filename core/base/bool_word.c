/* Boolean variables (see bool_word.h). */
#include "bool_word.h"

#include <errno.h>
#include <stddef.h>
#include <strings.h>

int sl_bool_word(const char *s)
{
    static const char *const words[][2] = {
        {"1", "0"}, {"yes", "no"}, {"true", "false"}, {"on", "off"},
    };
    if (!s)
        return -EINVAL;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        for (int no = 0; no < 2; no++)
            if (strcasecmp(s, words[i][no]) == 0)
                return !no;
    return -EINVAL;
}

/* Appends s at *n, cut at cap - 1 bytes. */
static void put(char *buf, size_t cap, size_t *n, const char *s)
{
    while (*s && *n + 1 < cap)
        buf[(*n)++] = *s++;
    buf[*n] = '\0';
}

int sl_bool_value(const char *name, const char *value, int def, char warn[SL_BOOL_WARN_BUF])
{
    warn[0] = '\0';
    if (!value)
        return def;
    int b = sl_bool_word(value);
    if (b >= 0)
        return b;
    char clip[SL_CLIP_BUF];
    size_t n = 0;
    put(warn, SL_BOOL_WARN_BUF, &n, name);
    put(warn, SL_BOOL_WARN_BUF, &n, "='");
    put(warn, SL_BOOL_WARN_BUF, &n, sl_clip(clip, value));
    put(warn, SL_BOOL_WARN_BUF, &n, "' not understood: expected " SL_BOOL_WORDS "; using ");
    put(warn, SL_BOOL_WARN_BUF, &n, def ? "1" : "0");
    return def;
}
