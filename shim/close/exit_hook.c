/* The end of a process that called likwid_markerInit but not Close: the
 * timing is delivered without counters (LIKWID is not asked: its own exit
 * work may already have run). */
#include "shim.h"

#include <stdlib.h>
#include <unistd.h>

#include "deliver.h"
#include "status_text.h"
#include "survive.h"

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
    sl_text status = {0};
    if (sl_g.cycle > 1)
        sl_text_add(&status, "Init..Close cycle %d of process %lld", sl_g.cycle,
                    (long long)sl_g.pid);
    sl_text_add(&status, "%s", atomic_load(&sl_in_real_init)
                                   ? "likwid_markerInit exited the process (LIKWID could not "
                                     "start counting); no counter data"
                                   : "application exited without likwid_markerClose; no counter "
                                     "data");
    int saved = sl_deliver(&in, &none, status.s ? status.s : "") == 0;
    free(status.s);
    if (saved)
        sl_survive_end();   /* else the journal is the last copy: it stays */
    sl_cycle_close_done();
}

/* After the application's atexit handlers and static destructors: they are
 * registered after the shim was loaded, or belong to objects finalised
 * before it (the shim depends on libc only, so it is finalised last). */
__attribute__((destructor)) static void exit_hook(void)
{
    sl_close_at_exit();
}
