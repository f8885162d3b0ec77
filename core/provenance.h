/* Internal header: not installed. Where a process ran: the CPU, the kernel,
 * its clock (the rank group's provenance attrs, docs/FORMAT.md). Read once,
 * at Init, into fixed buffers: nothing allocated, no helper started. */
#ifndef SL_PROVENANCE_H
#define SL_PROVENANCE_H

#include <stdint.h>
#include "run.h"

typedef struct sl_provenance {
    char cpu_model[128];        /* /proc/cpuinfo's first "model name"; "" unknown */
    char kernel_release[65];    /* uname's release */
    char clock_source[32];      /* /sys/.../clocksource0/current_clocksource */
    int64_t tsc_hz;             /* CPUID 0x15's TSC rate; 0 unknown */
} sl_provenance;

/* Fills p from this host; what cannot be read stays "" or 0. */
void sl_provenance_read(sl_provenance *p);

/* Copies p into the run's fields. 0 or -ENOMEM. */
int sl_provenance_set(sl_run *run, const sl_provenance *p);

#endif
