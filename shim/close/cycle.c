/* Several Init..Close cycles in one process (a code that profiles two
 * phases): each cycle gets its own result file, "<output>.cycle<N>.h5"
 * (the first keeps the plain name), and the status text names the cycle,
 * so `scope-likwid show` says which it is. The region table is kept (its
 * entries and arenas are reused, nothing is freed) and its counters are
 * zeroed; the configuration of the first Init stays. Each cycle's marker
 * file is noted at its Init and read at its Close. */
#include "shim.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "name_fit.h"
#include "real.h"
#include "region_table.h"
#include "sources.h"

static pthread_mutex_t cycle_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int closes_done;     /* cycles whose Close (or exit hook) has finished */

void sl_cycle_close_done(void)
{
    atomic_fetch_add(&closes_done, 1);
}

void sl_cycle_fork_child(void)
{
    pthread_mutex_init(&cycle_lock, NULL);
    atomic_store(&closes_done, 0);
}

/* Every cycle reaches LIKWID as without the shim. LIKWID 5.2 to 5.4 free
 * their state at Close and clear likwid_init, so the next Init starts
 * afresh and counts (pylikwid's own tests run three cycles); LIKWID 5.5
 * keeps its init flag with the state destroyed, and its later cycles do
 * there what they do without the shim. */
const sl_real_api *sl_cycle_api(void)
{
    return sl_real();
}

/* "<dir>/<stem>.cycle<N><.h5 or nothing>", kept within NAME_MAX. */
static char *cycle_output(const char *first, int cycle)
{
    char suffix[32];
    size_t len = strlen(first);
    int h5 = len > 3 && strcmp(first + len - 3, ".h5") == 0;
    snprintf(suffix, sizeof suffix, ".cycle%d%s", cycle, h5 ? ".h5" : "");
    char *stem = strndup(first, h5 ? len - 3 : len);
    if (!stem)
        return NULL;
    char *out = sl_name_fit(stem, "", suffix);
    free(stem);
    return out;
}

int sl_cycle_begin(void)
{
    pthread_mutex_lock(&cycle_lock);
    int ok = 0;
    /* Only once the previous Close has finished (another thread may still
     * be writing it), and once per Init. */
    if (atomic_load(&sl_mode) == SL_MODE_CLOSED && atomic_load(&closes_done) == sl_g.cycle) {
        char *out = cycle_output(sl_g.first_output, sl_g.cycle + 1);
        if (!out) {
            sl_log_warn("out of memory at likwid_markerInit (cycle %d): not timed",
                        sl_g.cycle + 1);
        } else {
            struct timespec m, r;
            clock_gettime(CLOCK_MONOTONIC, &m);
            clock_gettime(CLOCK_REALTIME, &r);
            sl_g.origin_unix_ns = ((int64_t)r.tv_sec - m.tv_sec) * 1000000000 +
                                  (r.tv_nsec - m.tv_nsec);
            sl_markerfile_note_init();
            if (sl_g.output != sl_g.first_output)
                free(sl_g.output);
            sl_g.output = out;
            sl_g.cycle++;
            sl_rt_forget();
            sl_close_rearm();
            ok = 1;
            sl_log_debug("cycle %d: output %s", sl_g.cycle, sl_g.output);
        }
    }
    pthread_mutex_unlock(&cycle_lock);
    return ok;
}
