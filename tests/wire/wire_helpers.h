/* Helpers for the wire tests: encode to memory, build a rich run, compare. */
#ifndef WIRE_HELPERS_H
#define WIRE_HELPERS_H

#include <stddef.h>
#include "run.h"

/* Runs the encoder into a memfd and returns the bytes (malloc'd) or NULL;
 * *rc gets the encoder's return value. */
char *encode_run(const sl_run *run, size_t *len, int *rc);
char *encode_likwid(const sl_likwid *lw, size_t *len, int *rc);

/* A run using every field, awkward tags and special doubles. */
void build_rich_run(sl_run *run);
/* A small run (few lines) for the cut-at-every-byte test. */
void build_small_run(sl_run *run);
/* One region with T threads, E events, M metrics and names. */
void add_region(sl_likwid *lw, const char *tag, size_t tag_len, int64_t gid, size_t T,
                size_t E, size_t M, int has_names);

/* Bit-exact comparisons; report the first difference with Criterion. */
void expect_run_equal(const sl_run *a, const sl_run *b);
void expect_likwid_equal(const sl_likwid *a, const sl_likwid *b);

#endif
