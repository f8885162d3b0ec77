/* LIKWID's C marker API, defined here so that the preloaded shim sees every
 * call (Fortran ones too: LIKWID's Fortran entry points call these through
 * the PLT). Only these and the Fortran names are exported (see the .map). */
#include "shim.h"

#define SL_EXPORT __attribute__((visibility("default")))

SL_EXPORT void likwid_markerInit(void);
SL_EXPORT void likwid_markerThreadInit(void);
SL_EXPORT int likwid_markerRegisterRegion(const char *regionTag);
SL_EXPORT int likwid_markerStartRegion(const char *regionTag);
SL_EXPORT int likwid_markerStopRegion(const char *regionTag);
SL_EXPORT int likwid_markerResetRegion(const char *regionTag);
SL_EXPORT void likwid_markerGetRegion(const char *regionTag, int *nr_events, double *events,
                                      double *time, int *count);
SL_EXPORT void likwid_markerNextGroup(void);
SL_EXPORT void likwid_markerClose(void);

void likwid_markerInit(void)
{
    sl_shim_init();
}

void likwid_markerThreadInit(void)
{
    sl_shim_thread_init();
}

int likwid_markerRegisterRegion(const char *regionTag)
{
    return sl_shim_register(regionTag);
}

int likwid_markerStartRegion(const char *regionTag)
{
    return sl_shim_start(regionTag);
}

int likwid_markerStopRegion(const char *regionTag)
{
    return sl_shim_stop(regionTag);
}

int likwid_markerResetRegion(const char *regionTag)
{
    return sl_shim_reset(regionTag);
}

void likwid_markerGetRegion(const char *regionTag, int *nr_events, double *events, double *time,
                            int *count)
{
    sl_shim_get(regionTag, nr_events, events, time, count);
}

void likwid_markerNextGroup(void)
{
    sl_shim_next_group();
}

void likwid_markerClose(void)
{
    sl_shim_close();
}
