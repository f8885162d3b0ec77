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
    SL_V_HIGHER,    /* metrics go up or down; their direction (sl_better) says which is worse */
    SL_V_LOWER,
    SL_V_ONLY_BASE,
    SL_V_ONLY_NEW,
    SL_V_NO_DATA,   /* present in both, but nothing to compare (no calls, no metric) */
} sl_verdict;

const char *sl_verdict_name(sl_verdict v);

/* What a row does to the gate (exit status 1): nothing (reported only:
 * regions only in new, metrics without a direction, what --allow-missing
 * lets pass), passes, or fails. */
typedef enum sl_gate { SL_GATE_NONE, SL_GATE_PASS, SL_GATE_FAIL } sl_gate;

const char *sl_gate_name(sl_gate g);

/* Which way a --metric is better ("NAME:higher", "NAME:lower"); none:
 * reported as higher/lower, never failing. */
typedef enum sl_better { SL_BETTER_NONE, SL_BETTER_HIGHER, SL_BETTER_LOWER } sl_better;

typedef struct sl_diff_metric {
    const char *name;
    sl_better better;
} sl_diff_metric;

typedef struct sl_diff_opts {
    double threshold;              /* percent */
    const sl_diff_metric *metrics; /* LIKWID metrics (or event labels) to compare */
    size_t nmetrics;
    int allow_missing;             /* what base has and new lacks passes (reported) */
} sl_diff_opts;

typedef struct sl_diff_row {
    char *rank;             /* the rank group's name ("rank3"); "rank1/rank4" when the
                             * paired groups' names differ (base/new) */
    char *region;           /* displayable tag (stray bytes as \xHH) */
    int64_t group_id;       /* -1: the shim's timing */
    char *group_name;       /* "" for timing */
    const char *statistic;  /* static text: "median", "mean", "mean (samples capped)",
                             * "max thread", "thread mean", "events" */
    char *quantity;         /* "time/call", "runtime/call", "counters" (base has
                             * events, new none) or the metric's name */
    const char *unit;       /* "ms", "s", "" */
    double base, new_;      /* NAN: absent */
    double base_min, new_min; /* per-call minimum (median rows only), else NAN */
    double change_pct;      /* (new - base) / base * 100; NAN when not defined */
    sl_verdict verdict;
    sl_gate gate;
    int missing;            /* base has it, new lacks it (fails unless allowed) */
} sl_diff_row;

typedef struct sl_diff {
    size_t n, cap;
    sl_diff_row *rows;
    size_t failed, slower, worse, missing; /* rows failing the gate, and why */
    size_t capped;          /* timing rows comparing means: samples capped */
    size_t nwarnings;       /* lines for stderr (and --github's ::warning) */
    char **warnings;
} sl_diff;

/* Compares base with new_ under o. 0 or -ENOMEM. */
int sl_diff_build(const sl_runset *base, const sl_runset *new_, const sl_diff_opts *o,
                  sl_diff *out);
void sl_diff_free(sl_diff *d);

/* 1 when some LIKWID region of s has a metric (or an event label) name,
 * else 0; -ENOMEM. */
int sl_diff_has_metric(const sl_runset *s, const char *name);

/* The pairing of runs (diff_pair.c: by origin, then MPI rank, then group
 * number): (*to_new)[i] is the index in new_ of base run i's partner, or
 * SIZE_MAX; a new run nobody points at is only in new. 0 or -ENOMEM. */
int sl_diff_pair(const sl_runset *base, const sl_runset *new_, size_t **to_new);

/* Provenance (diff_provenance.c): one warning per field (host,
 * executable, ...) in which some paired runs differ, appended to
 * d->warnings. 0 or -ENOMEM. */
int sl_diff_provenance(const sl_runset *base, const sl_runset *new_, const size_t *to_new,
                       sl_diff *d);
/* Appends a copy of the formatted line to d->warnings. 0 or -ENOMEM. */
int sl_diff_warn(sl_diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The columns of the table and of the Markdown summary. */
#define SL_DIFF_COLUMNS(X)                                                                     \
    X(RANK, "Rank") X(REGION, "Region") X(SOURCE, "Source") X(QUANTITY, "Quantity")           \
    X(STATISTIC, "Statistic") X(BASE, "Base") X(NEW, "New") X(CHANGE, "Change")               \
    X(VERDICT, "Verdict") X(GATE, "Gate") X(BASE_MIN, "Base min") X(NEW_MIN, "New min")
typedef enum sl_diff_col {
#define X(id, head) SL_DIFF_COL_##id,
    SL_DIFF_COLUMNS(X)
#undef X
    SL_DIFF_NCOLS
} sl_diff_col;
extern const char *const sl_diff_col_head[SL_DIFF_NCOLS];

#define SL_DIFF_CELL_BUF 512
/* The text of one cell of row r, "" when empty; formatted texts in buf. */
const char *sl_diff_cell(const sl_diff_row *r, sl_diff_col col, char buf[SL_DIFF_CELL_BUF]);
/* Whether the Base min and New min columns hold anything. */
int sl_diff_with_min(const sl_diff *d);

/* The renderers (diff_render.c). The table replaces control bytes of the
 * region tags with '?' in place. base, new_: the files' names as JSON
 * quotes them. */
void sl_diff_print_table(FILE *f, const sl_diff *d);
void sl_diff_print_csv(FILE *f, const sl_diff *d);
void sl_diff_print_json(FILE *f, const sl_diff *d, const char *base, const char *new_,
                        const sl_diff_opts *o);

/* For CI systems (diff_ci.c). verdict: the last stderr line's text (what
 * the exit status means); error: what prevented the comparison, NULL when
 * it was made (d is then empty). The JUnit XML: one testcase per row, a
 * failure element per failing row (an error element for error). */
void sl_diff_print_junit(FILE *f, const sl_diff *d, const char *base, const char *new_,
                         const char *verdict, const char *error);
/* GitHub Actions' workflow commands: ::error per failing row (or for
 * error), ::warning per warning and per missing row let pass. */
void sl_diff_print_github(FILE *f, const sl_diff *d, const char *error);
/* A Markdown section for $GITHUB_STEP_SUMMARY: heading, the rows, verdict. */
void sl_diff_print_markdown(FILE *f, const sl_diff *d, const char *base, const char *new_,
                            const char *verdict, const char *error);

#endif
