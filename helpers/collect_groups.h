/* Internal header: not installed. The collector's part of recognising a
 * group from its events (core/likwid/group_match.h): each custom event set of
 * LIKWID_EVENTS against the group files of the LIKWID the application
 * loaded, with that LIKWID's architecture, cycle clock and topology. */
#ifndef SL_COLLECT_GROUPS_H
#define SL_COLLECT_GROUPS_H

#include "likwid_result.h"

/* For the full-API regions of lw: liblikwid is the library the collector
 * loaded (NULL: the loader's liblikwid.so), initialised (perfmon_init
 * done, not finalised). What was found for each custom set is one
 * "scope-likwid-collect: note: group N: ..." line on stderr (the shim puts
 * notes into likwid_status). 0 or -ENOMEM. */
int sl_collect_groups(sl_likwid *lw, const char *liblikwid);

#endif
