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
