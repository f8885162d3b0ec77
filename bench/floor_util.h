/* What the floor programs (floor_merge, floor_read, floor_write) share:
 * the tools' fixed metadata cache and a millisecond clock. */
#ifndef BENCH_FLOOR_UTIL_H
#define BENCH_FLOOR_UTIL_H
#include <hdf5.h>

/* Sets FAPL's metadata cache to the tools' fixed 128 KiB (no resizing);
 * returns H5Pset_mdc_config's result. */
herr_t floor_small_cache(hid_t fapl);
/* CLOCK_MONOTONIC in milliseconds. */
double floor_now_ms(void);

#endif
