/* Test runs for the h5 suite: a run with every awkward case the format has
 * to survive, and a large one for timing the writer. */
#ifndef SL_TEST_H5_FIXTURE_H
#define SL_TEST_H5_FIXTURE_H

#include <stddef.h>
#include "run.h"

#define BIG_TAG_LEN 10240

/* The awkward tags used for timing and likwid regions. */
extern const char *const fixture_tags[];
extern const size_t fixture_tag_lens[];
extern const size_t fixture_ntags;

/* Fills run (sl_run_init'ed here) with: timing regions for every awkward
 * tag and a 10 kB tag; likwid regions: full_api with names/counters/metrics
 * (one tag in two groups, repeated event names), marker_file without names,
 * marker_api with T=1, and empty (E=0, M=0) ones; LIKWID_* env vars. */
void fixture_run(sl_run *run, int64_t rank);
/* nregions likwid regions of T threads and E events, and as many timing
 * regions, for timing the writer. */
void fixture_big(sl_run *run, size_t nregions, size_t t, size_t e);
/* A fresh empty directory under /tmp (caller removes it with fixture_rmdir). */
char *fixture_dir(void);
void fixture_rmdir(const char *dir);
/* Names in dir, sorted, joined with '\n' (for "no leftovers" checks). */
char *fixture_ls(const char *dir);

#endif
