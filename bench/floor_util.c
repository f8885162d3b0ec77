#include "floor_util.h"

#include <string.h>
#include <time.h>

herr_t floor_small_cache(hid_t fapl)
{
    H5AC_cache_config_t c;
    memset(&c, 0, sizeof c);
    c.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    H5Pget_mdc_config(fapl, &c);
    c.set_initial_size = 1;
    c.initial_size = c.max_size = c.min_size = 128u << 10;
    c.incr_mode = H5C_incr__off;
    c.flash_incr_mode = H5C_flash_incr__off;
    c.decr_mode = H5C_decr__off;
    return H5Pset_mdc_config(fapl, &c);
}

double floor_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}
