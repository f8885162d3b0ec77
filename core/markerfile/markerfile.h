/* Internal header: not installed. Reader of LIKWID's marker result file,
 * every version from 5.2 on (see docs/FORMAT.md and the spec marker-file.md).
 * No limit on events per line or tag length; never crashes on bad input. */
#ifndef SL_MARKERFILE_H
#define SL_MARKERFILE_H

#include <stddef.h>
#include "diag.h"
#include "likwid_result.h"

typedef struct sl_markerfile_info {
    long long header_threads;   /* as written in the header */
    long long header_regions;
    long long header_groups;
    size_t skipped_lines;       /* lines ignored in salvage mode */
    size_t placeholder_lines;   /* cpu=-1 (5.2-5.4) and 5.5.0/5.5.1 placeholders dropped */
    size_t lost_lines;          /* 5.5's lines of only -22 (-EINVAL): values it lost, dropped */
} sl_markerfile_info;

enum { SL_MF_STRICT = 1 };

/* The value LIKWID 5.5 writes for every event of a thread whose values it
 * lost (-EINVAL as a double): never a count. */
#define SL_MF_LIKWID_EINVAL (-22.0)

/* Parses buf (len bytes, need not be NUL-terminated) named `name` in messages.
 * Regions are appended to out (source SL_SOURCE_MARKER_FILE, has_names 0).
 * Every defect is reported to diag as "name:line: ...: expected ...".
 * Strict: any defect is an error. Otherwise defective lines or regions are
 * skipped and reading goes on; defects that leave nothing to read (empty
 * file, bad header) are errors in both modes.
 * Returns 0 or a negative errno (-EINVAL for bad input, -ENOMEM). On error
 * out may hold partial results: the caller frees it. */
int sl_markerfile_parse(const char *buf, size_t len, const char *name, int flags,
                        sl_likwid *out, sl_markerfile_info *info, sl_diag *diag);

/* Reads the file at path and parses it as above. A missing or unreadable file
 * is reported to diag and returns the negative errno of the failure. */
int sl_markerfile_read(const char *path, int flags, sl_likwid *out,
                       sl_markerfile_info *info, sl_diag *diag);

#endif
