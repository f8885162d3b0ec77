/* Internal to h5/: scope-profiler's files (h5_sp.c), read as ours and
 * merged beside ours. */
#ifndef SL_H5_SP_H
#define SL_H5_SP_H

#include "h5_util.h"

/* 1 when f is a file of scope-profiler's layout: no root attr format,
 * /metadata with attr scope_profiler_version, top-level names only
 * metadata and rank<N>, each rank<N> a group holding regions. */
int sl_h5_sp_file(hid_t f);
/* 1 when rank group name of f (a file of ours) is one of scope-profiler's
 * copied by merge: regions/, no timing/, none of our rank attributes. */
int sl_h5_sp_group(hid_t f, const char *name);
/* Reads rank group name of f, in scope-profiler's layout (regions/ the
 * timing, one thread; likwid/ in their LIKWID writer's layout or ours). */
int sl_h5r_sp_run(sl_h5r *r, hid_t f, const char *name, int64_t number,
                  const struct sl_file_meta *meta, sl_run *run);
/* rank<R>/likwid of rank_group read leniently, as scope-profiler reads it
 * (absent attrs default to "", -1, []; event_labels computed). */
int sl_h5r_likwid_any(sl_h5r *r, hid_t rank_group, const char *path, sl_run *run);
/* Writes (replacing) rank<R>/likwid in their LIKWID writer's layout. */
int sl_h5w_sp_likwid(sl_h5w *w, hid_t rank_group, const sl_run *run);

#endif
