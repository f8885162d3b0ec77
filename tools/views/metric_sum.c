/* Which LIKWID metrics sum over HWThreads, by their unit. */
#include "metric_sum.h"

#include <string.h>

/* The units that sum over HWThreads (beside any rate, "/s"). */
static const char *const summable_units[] = {
    "J", "W", "Bytes", "kBytes", "MBytes", "GBytes", "TBytes", "Byte", "MByte", "GByte",
};

int sl_metric_summable(const char *name)
{
    const char *open = strrchr(name, '[');
    const char *close = open ? strchr(open, ']') : NULL;
    if (!close)
        return 0;
    size_t len = (size_t)(close - open - 1);
    const char *unit = open + 1;
    if (len > 2 && !memcmp(unit + len - 2, "/s", 2))
        return 1;
    for (size_t i = 0; i < sizeof summable_units / sizeof *summable_units; i++)
        if (strlen(summable_units[i]) == len && !memcmp(unit, summable_units[i], len))
            return 1;
    return 0;
}
