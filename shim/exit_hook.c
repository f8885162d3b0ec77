/* The end of a process that called likwid_markerInit but not Close: the
 * timing is delivered without counters (LIKWID is not asked: its own exit
 * work may already have run). */
#include "shim.h"

#include <unistd.h>

#include "deliver.h"

void sl_close_at_exit(void)
{
    if (atomic_load(&sl_mode) != SL_MODE_ACTIVE || getpid() != sl_g.pid)
        return;
    if (!sl_close_claim())
        return;
    sl_deliver_in in;
    sl_deliver_in_from(&sl_g, &in);
    sl_likwid none;
    sl_likwid_init(&none);
    sl_deliver(&in, &none, atomic_load(&sl_in_real_init)
                               ? "likwid_markerInit exited the process (LIKWID could not start "
                                 "counting); no counter data"
                               : "application exited without likwid_markerClose; no counter data");
}
