/* Internal to `scope-likwid diff` (cmd_diff.c, diff_compare.c): the rows of
 * a comparison of two result files. Not a contract. */
#ifndef SL_DIFF_H
#define SL_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "h5read.h"

typedef enum sl_verdict {
    SL_V_SAME,
    SL_V_SLOWER,
    SL_V_FASTER,
    SL_V_HIGHER,    /* metrics have no "better": they go up or down */
    SL_V_LOWER,
    SL_V_ONLY_BASE,
    SL_V_ONLY_NEW,
    SL_V_NO_DATA,   /* present in both, but nothing to compare (no calls, no metric) */
} sl_verdict;

const char *sl_verdict_name(sl_verdict v);

typedef struct sl_diff_row {
    char *rank;             /* the rank group's name ("rank3"); "rank1/rank4" when the
                             * paired groups' names differ (base/new) */
    char *region;           /* displayable tag (stray bytes as \xHH) */
    int64_t group_id;       /* -1: the shim's timing */
    char *group_name;       /* "" for timing */
    const char *statistic;  /* static text: "median", "mean", "max thread", "thread mean" */
    char *quantity;         /* "time/call", "runtime/call", or the metric's name */
    const char *unit;       /* "ms", "s", "" */
    double base, new_;      /* NAN: absent */
    double base_min, new_min; /* per-call minimum (median rows only), else NAN */
    double change_pct;      /* (new - base) / base * 100; NAN when not defined */
    sl_verdict verdict;
} sl_diff_row;

typedef struct sl_diff {
    size_t n, cap;
    sl_diff_row *rows;
} sl_diff;

/* threshold in percent. metrics: names of LIKWID metrics (or event labels)
 * to compare (mean over threads). 0 or -ENOMEM. */
int sl_diff_build(const sl_runset *base, const sl_runset *new_, double threshold,
                  char *const *metrics, size_t nmetrics, sl_diff *out);
void sl_diff_free(sl_diff *d);

/* The pairing of runs (diff_pair.c: by origin, then MPI rank, then group
 * number): (*to_new)[i] is the index in new_ of base run i's partner, or
 * SIZE_MAX; a new run nobody points at is only in new. 0 or -ENOMEM. */
int sl_diff_pair(const sl_runset *base, const sl_runset *new_, size_t **to_new);

/* The renderers (diff_render.c). The table replaces control bytes of the
 * region tags with '?' in place. base, new_: the files' names as JSON
 * quotes them; slower: the rows with verdict slower. */
void sl_diff_print_table(FILE *f, const sl_diff *d);
void sl_diff_print_csv(FILE *f, const sl_diff *d);
void sl_diff_print_json(FILE *f, const sl_diff *d, const char *base, const char *new_,
                        double threshold, size_t slower);

#endif
