/* Internal header: not installed. Where Close gets LIKWID's counters from,
 * best first: the collector helper (full_api: LIKWID's own reader in a
 * separate process), the shim's marker-file reader (marker_file), the
 * closing thread's GetRegion snapshots taken just before LIKWID's Close
 * (marker_api). Each step adds to the status text what it did and why. */
#ifndef SL_SHIM_SOURCES_H
#define SL_SHIM_SOURCES_H

#include <stdint.h>

#include "likwid_result.h"
#include "real.h"
#include "status_text.h"

/* What the chain needs to know, passed in by Close. */
typedef struct sl_sources_in {
    const char *markerfile;     /* LIKWID_FILEPATH */
    unsigned sources;           /* SL_SRC_* bits allowed */
    const char *collector;      /* SCOPE_LIKWID_COLLECTOR, NULL: next to the shim */
    double timeout_s;           /* the collector's deadline */
} sl_sources_in;

/* GetRegion of every region the calling thread started, for group `group`,
 * into snap (source marker_api when any). Before LIKWID's Close. */
void sl_snapshots_take(const sl_real_api *r, int64_t group, sl_likwid *snap);

/* The chain after LIKWID's Close: fills lw (empty on entry) from the first
 * source that works; snap (the snapshots) is moved into lw when it is the
 * one. Returns 1 when lw holds counters. */
int sl_sources_collect(const sl_sources_in *in, sl_likwid *snap, sl_likwid *lw,
                       sl_text *status);

/* The steps, one file each. */
/* At each cycle's Init: notes LIKWID_FILEPATH's file as it is then, and
 * the time; sl_source_markerfile_ok judges the file at Close against it. */
void sl_markerfile_note_init(void);
int sl_source_markerfile_ok(const char *path, sl_text *status);
int sl_source_collector(const sl_sources_in *in, sl_likwid *lw, sl_text *status);
int sl_source_markerfile(const char *path, sl_likwid *lw, sl_text *status);

#endif
