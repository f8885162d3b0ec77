/* Decimal integers from text (see parse_int.h). */
#include "parse_int.h"

#include <errno.h>
#include <stdlib.h>

int sl_parse_i64(const char *s, long long *out)
{
    char *end;
    if (!*s)
        return -EINVAL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return -EINVAL;
    *out = v;
    return 0;
}

int sl_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
