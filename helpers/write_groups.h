/* Internal header: not installed. The writer's part of the fallback path
 * (docs/SHIM.md): counters that came from LIKWID's marker file get their
 * event names and metrics from LIKWID's group files when the group and the
 * CPU architecture are known. */
#ifndef SL_WRITE_GROUPS_H
#define SL_WRITE_GROUPS_H

#include "diag.h"
#include "run.h"

/* For a run with marker-file regions: the groups of its recorded
 * LIKWID_EVENTS, the architecture from $SCOPE_LIKWID_ARCH or LIKWID's
 * topology (liblikwid loaded into this helper process, never into the
 * application; also the node's sockets and NUMA domains), LIKWID's cycle
 * clock (CPUID leaf 0x16, as LIKWID's timer takes it), the group files of $SCOPE_LIKWID_PERFGROUPS or Debian's
 * folder. What was applied, left out or why nothing was is appended to
 * likwid_status; a failure never stops the write. 0 or -ENOMEM. */
int sl_write_groups(sl_run *run, sl_diag *d);

#endif
